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
	"slices"
)

// keep are the sections a skeleton keeps.
var keep = map[string]bool{
	".eh_frame": true, ".eh_frame_hdr": true,
	".note.gnu.build-id": true, ".gnu_debuglink": true, ".shstrtab": true,
}

// Make returns the skeleton of the ELF object at path, and its build-id
// in hexadecimal ("" when it has none). When used is not nil, only the
// FDEs whose range (up to the next FDE's start, by .eh_frame_hdr's table)
// holds one of the addresses used keep their instructions: the others
// become no-ops, which gzip to nothing.
func Make(path string, used []uint64) (skel []byte, buildID string, err error) {
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
	if used != nil {
		prune(out, f, used)
	}
	return out, noteBuildID(f), nil
}

// prune zeroes the instructions of the FDEs no used address falls in. It
// reads .eh_frame_hdr's table as linkers write it (data-relative signed
// 4-byte entries) and leaves the sections alone otherwise.
func prune(out []byte, f *elf.File, used []uint64) {
	hdr, eh := f.Section(".eh_frame_hdr"), f.Section(".eh_frame")
	if hdr == nil || eh == nil || hdr.Type == elf.SHT_NOBITS || eh.Type == elf.SHT_NOBITS {
		return
	}
	h := out[hdr.Offset : hdr.Offset+hdr.FileSize]
	if len(h) < 12 || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b {
		return
	}
	n := int(binary.LittleEndian.Uint32(h[8:]))
	if n > (len(h)-12)/8 {
		return
	}
	entry := func(i int) (start, fde uint64) {
		e := h[12+8*i:]
		return hdr.Addr + uint64(int64(int32(binary.LittleEndian.Uint32(e)))),
			hdr.Addr + uint64(int64(int32(binary.LittleEndian.Uint32(e[4:]))))
	}
	for i := 0; i < n; i++ {
		start, fde := entry(i)
		end := ^uint64(0)
		if i+1 < n {
			end, _ = entry(i + 1)
		}
		j, _ := slices.BinarySearch(used, start)
		if j < len(used) && used[j] < end {
			continue
		}
		if fde < eh.Addr || fde-eh.Addr+16 > eh.FileSize {
			continue
		}
		off := eh.Offset + fde - eh.Addr
		length := uint64(binary.LittleEndian.Uint32(out[off:]))
		if length == 0xffffffff || length < 12 || off+4+length > eh.Offset+eh.FileSize {
			continue
		}
		// After the length, CIE pointer, start and range (4 bytes each
		// in the encodings linkers use): augmentation length and
		// instructions, zero: no augmentation data, no-ops.
		clear(out[off+16 : off+4+length])
	}
}

// BuildID returns the build-id of the ELF object at path, in hexadecimal
// ("" when it has none).
func BuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return noteBuildID(f), nil
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
