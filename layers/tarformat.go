package layers

import (
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
)

// The tar encoder is written by hand rather than with archive/tar for two
// reasons. archive/tar refuses non-ASCII names in ustar headers and would
// switch every UTF-8 skill name to PAX, while ustar stores name bytes as
// they are (as git archive and GNU tar do). And the layer digest depends on
// every header byte, so the encoding must be pinned here, not follow the
// toolchain. For ASCII names the output is byte-for-byte what archive/tar
// writes with FormatUSTAR, falling back to FormatPAX; a test holds that.

const (
	blockSize      = 512
	nameSize       = 100
	prefixSize     = 155
	maxOctalSize   = 1<<33 - 1 // 11 octal digits in the size field
	typeReg        = '0'
	typeDir        = '5'
	typePAXHeader  = 'x'
	paxHeaderDir   = "PaxHeaders.0"
	paxPathKeyword = "path"
)

// Offsets of the ustar header fields.
const (
	offName     = 0
	offMode     = 100
	offUID      = 108
	offGID      = 116
	offSize     = 124
	offMtime    = 136
	offChksum   = 148
	offTypeflag = 156
	offMagic    = 257
	offVersion  = 263
	offUname    = 265
	offGname    = 297
	offDevmajor = 329
	offDevminor = 337
	offPrefix   = 345
)

var errFileTooLarge = errors.New("file too large for a ustar size field (8 GiB)")

type tarBlock [blockSize]byte

// tarWriter writes the entries of a layer: fixed owner, mtime and modes.
type tarWriter struct {
	w   io.Writer
	blk tarBlock
	pad int64 // zero bytes owed after the current file's content
}

// writeHeader starts an entry. name carries a trailing slash for directories.
func (tw *tarWriter) writeHeader(name string, mode, size int64, flag byte) error {
	if size > maxOctalSize {
		return errFileTooLarge
	}
	if prefix, suffix, ok := splitUSTARName(name); ok {
		tw.fillEntry(suffix, mode, size, flag)
		putString(tw.blk[offPrefix:offPrefix+prefixSize], prefix)
		return tw.flushBlock()
	}
	if err := tw.writePAXPath(name); err != nil {
		return err
	}
	tw.fillEntry(toASCII(name), mode, size, flag)
	return tw.flushBlock()
}

// fillEntry lays out the fields every entry header shares.
func (tw *tarWriter) fillEntry(name string, mode, size int64, flag byte) {
	tw.blk = tarBlock{}
	putString(tw.blk[offName:offName+nameSize], name)
	putOctal(tw.blk[offMode:offMode+8], mode)
	putOctal(tw.blk[offUID:offUID+8], 0)
	putOctal(tw.blk[offGID:offGID+8], 0)
	putOctal(tw.blk[offSize:offSize+12], size)
	putOctal(tw.blk[offMtime:offMtime+12], 0)
	tw.blk[offTypeflag] = flag
	putString(tw.blk[offUname:offUname+32], "")
	putString(tw.blk[offGname:offGname+32], "")
	putOctal(tw.blk[offDevmajor:offDevmajor+8], 0)
	putOctal(tw.blk[offDevminor:offDevminor+8], 0)
	if flag == typeReg {
		tw.pad = padding(size)
	} else {
		tw.pad = 0
	}
}

// writePAXPath emits the extended header that carries a name too long for
// the ustar fields. Its own name only matters to readers without PAX
// support; it follows archive/tar so that it stays deterministic.
func (tw *tarWriter) writePAXPath(name string) error {
	data := paxRecord(paxPathKeyword, name)
	dir, file := path.Split(name)
	hdrName := toASCII(path.Join(dir, paxHeaderDir, file))
	if len(hdrName) > nameSize {
		hdrName = hdrName[:nameSize]
	}
	hdrName = strings.TrimRight(hdrName, "/")
	tw.blk = tarBlock{}
	putString(tw.blk[offName:offName+nameSize], hdrName)
	putOctal(tw.blk[offMode:offMode+8], 0)
	putOctal(tw.blk[offUID:offUID+8], 0)
	putOctal(tw.blk[offGID:offGID+8], 0)
	putOctal(tw.blk[offSize:offSize+12], int64(len(data)))
	putOctal(tw.blk[offMtime:offMtime+12], 0)
	tw.blk[offTypeflag] = typePAXHeader
	if err := tw.flushBlock(); err != nil {
		return err
	}
	tw.pad = padding(int64(len(data)))
	if _, err := io.WriteString(tw.w, data); err != nil {
		return err
	}
	return tw.finishEntry()
}

// flushBlock stamps magic and checksum, then writes the header block.
func (tw *tarWriter) flushBlock() error {
	copy(tw.blk[offMagic:], "ustar\x00")
	copy(tw.blk[offVersion:], "00")
	var sum int64
	for i, c := range tw.blk {
		if i >= offChksum && i < offChksum+8 {
			c = ' '
		}
		sum += int64(c)
	}
	putOctal(tw.blk[offChksum:offChksum+7], sum)
	tw.blk[offChksum+7] = ' '
	_, err := tw.w.Write(tw.blk[:])
	return err
}

// finishEntry pads the content written since the header to a whole block.
func (tw *tarWriter) finishEntry() error {
	if tw.pad == 0 {
		return nil
	}
	var zero tarBlock
	_, err := tw.w.Write(zero[:tw.pad])
	tw.pad = 0
	return err
}

// close writes the two zero blocks that end an archive.
func (tw *tarWriter) close() error {
	var zero [2 * blockSize]byte
	_, err := tw.w.Write(zero[:])
	return err
}

// splitUSTARName splits a name over the prefix and name fields the way
// archive/tar does: at the last slash that leaves a prefix of at most 155
// bytes. Unlike archive/tar it accepts any bytes, UTF-8 included.
func splitUSTARName(name string) (prefix, suffix string, ok bool) {
	length := len(name)
	if length <= nameSize {
		return "", name, true
	}
	if length > prefixSize+1 {
		length = prefixSize + 1
	} else if name[length-1] == '/' {
		length--
	}
	i := strings.LastIndex(name[:length], "/")
	nlen, plen := len(name)-i-1, i
	if i <= 0 || nlen > nameSize || nlen == 0 || plen > prefixSize {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

func toASCII(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < 0x80 && c != 0 {
			b.WriteByte(byte(c))
		}
	}
	return b.String()
}

// paxRecord formats "<len> <key>=<value>\n", where len counts itself.
func paxRecord(key, value string) string {
	const padding = 3 // ' ', '=' and '\n'
	size := len(key) + len(value) + padding
	size += len(strconv.Itoa(size))
	record := strconv.Itoa(size) + " " + key + "=" + value + "\n"
	if len(record) != size {
		// Adding the length's own digits carried it to one more digit.
		size = len(record)
		record = strconv.Itoa(size) + " " + key + "=" + value + "\n"
	}
	return record
}

// putString copies s into a field, NUL-terminating it when there is room
// and truncating it when there is not. Only the PAX fallback truncates: it
// leaves a best-effort name for readers that ignore the PAX record.
func putString(b []byte, s string) {
	copy(b, s)
	if len(s) < len(b) {
		b[len(s)] = 0
	}
	if len(s) > len(b) && b[len(b)-1] == '/' {
		// Some readers take a trailing slash in the name field for a
		// directory, whatever the PAX record says.
		n := len(strings.TrimRight(s[:len(b)-1], "/"))
		b[n] = 0
	}
}

// putOctal writes x zero-padded, leaving the last byte for a NUL.
func putOctal(b []byte, x int64) {
	s := strconv.FormatInt(x, 8)
	if n := len(b) - len(s) - 1; n > 0 {
		s = strings.Repeat("0", n) + s
	}
	putString(b, s)
}

func padding(size int64) int64 {
	return -size & (blockSize - 1)
}
