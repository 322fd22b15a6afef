package perfdata

import (
	"bytes"
	"encoding/binary"
)

// cursor reads little-endian values from a byte slice. Reading past the
// end yields zeros and sets bad, so that a parser can read a whole
// structure and check once.
type cursor struct {
	b   []byte
	off int
	bad bool
}

func (c *cursor) left() int { return len(c.b) - c.off }

func (c *cursor) need(n int) bool {
	if n < 0 || n > len(c.b)-c.off {
		c.bad = true
		c.off = len(c.b)
		return false
	}
	return true
}

func (c *cursor) u64() uint64 {
	if !c.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.off:])
	c.off += 8
	return v
}

func (c *cursor) u32() uint32 {
	if !c.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(c.b[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u16() uint16 {
	if !c.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(c.b[c.off:])
	c.off += 2
	return v
}

func (c *cursor) u8() uint8 {
	if !c.need(1) {
		return 0
	}
	v := c.b[c.off]
	c.off++
	return v
}

// bytes returns the next n bytes (a sub-slice, not a copy).
func (c *cursor) bytes(n int) []byte {
	if !c.need(n) {
		return nil
	}
	v := c.b[c.off : c.off+n : c.off+n]
	c.off += n
	return v
}

func (c *cursor) skip(n int) {
	if c.need(n) {
		c.off += n
	}
}

// cstr returns the next NUL-terminated string and moves past its NUL.
func (c *cursor) cstr() string {
	i := bytes.IndexByte(c.b[c.off:], 0)
	if i < 0 {
		c.bad = true
		c.off = len(c.b)
		return ""
	}
	s := string(c.b[c.off : c.off+i])
	c.off += i + 1
	return s
}

// headerString reads a perf_header_string: a u32 length, then that many
// bytes holding a NUL-terminated (and padded) string.
func (c *cursor) headerString() string {
	n := c.u32()
	b := c.bytes(int(n))
	return cString(b)
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
