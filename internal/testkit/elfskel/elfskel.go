// Package elfskel makes skeletons of ELF objects for the tests of DWARF
// captures: copies with the same layout (headers, program headers,
// section table, build-id note) and the call frame information
// (.eh_frame, .eh_frame_hdr), every other byte zeroed, so
// that they gzip to a few kilobytes. An unwinder reads them as it reads
// the objects; a symbol reader finds no symbols in them.
package elfskel

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
)

// keep are the sections a skeleton keeps.
var keep = map[string]bool{
	".eh_frame": true, ".eh_frame_hdr": true,
	".note.gnu.build-id": true, ".gnu_debuglink": true, ".shstrtab": true,
}

// Make returns the skeleton of the ELF object at path, and its build-id
// in hexadecimal ("" when it has none).
func Make(path string) (skel []byte, buildID string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		return nil, "", fmt.Errorf("%s: not a 64-bit little-endian object", path)
	}
	out := make([]byte, len(data))
	cp := func(off, n uint64) {
		if off <= uint64(len(data)) && n <= uint64(len(data))-off {
			copy(out[off:off+n], data[off:off+n])
		}
	}
	// The ELF header and the program headers.
	ehdr := 64
	cp(0, uint64(ehdr))
	phoff := f.ByteOrder.Uint64(data[32:])
	phentsize, phnum := f.ByteOrder.Uint16(data[54:]), f.ByteOrder.Uint16(data[56:])
	cp(phoff, uint64(phentsize)*uint64(phnum))
	// The section header table.
	shoff := f.ByteOrder.Uint64(data[40:])
	shentsize, shnum := f.ByteOrder.Uint16(data[58:]), f.ByteOrder.Uint16(data[60:])
	cp(shoff, uint64(shentsize)*uint64(shnum))
	for _, s := range f.Sections {
		if keep[s.Name] && s.Type != elf.SHT_NOBITS {
			cp(s.Offset, s.FileSize)
		}
	}
	return out, noteBuildID(f), nil
}

// noteBuildID returns the GNU build-id note of f in hexadecimal.
func noteBuildID(f *elf.File) string {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz, descsz := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	off := 12 + (int(namesz)+3)&^3
	if off+int(descsz) > len(b) {
		return ""
	}
	return hex.EncodeToString(b[off : off+int(descsz)])
}
