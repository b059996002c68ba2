// Package bounded reads files and streams with a size limit, and files only
// when they are regular files: a device (/dev/zero), a FIFO or a directory
// is refused before it is opened, a larger input is an error that names the
// file and the limit, never its content, and nothing is ever cut silently.
package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrTooLarge is returned for an input past its limit.
var ErrTooLarge = errors.New("larger than its limit")

// ErrNotRegular is returned for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside is returned for a path that leaves the directory it must stay in.
var ErrOutside = errors.New("outside its directory")

// Error names the input, the rule and the limit, never the content.
type Error struct {
	Name  string // the file's base name, or "standard input"
	Limit int64  // bytes, for ErrTooLarge
	Err   error
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s is larger than its limit of %d bytes", e.Name, e.Limit)
	case errors.Is(e.Err, ErrNotRegular):
		return e.Name + " is not a regular file"
	case errors.Is(e.Err, ErrOutside):
		return e.Name + " lies outside the directory it is read from"
	}
	return e.Name + " cannot be read"
}

func (e *Error) Unwrap() error { return e.Err }

// ReadFile reads the regular file at path, at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	name := filepath.Base(path)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Name: name, Err: ErrNotRegular}
	}
	if fi.Size() > limit {
		return nil, &Error{Name: name, Limit: limit, Err: ErrTooLarge}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	defer f.Close()
	// Sized from the stat, so that a large file is read in one allocation
	// (io.ReadAll's doubling copied the assembly's 4 MB of JSON several
	// times).
	return read(f, name, limit, fi.Size())
}

// Read reads r to its end, at most limit bytes; name names it in errors.
func Read(r io.Reader, name string, limit int64) ([]byte, error) { return read(r, name, limit, 0) }

// read reads r to its end, at most limit bytes, into a buffer made for size;
// one byte past the limit tells an input that is (or grew) too large.
func read(r io.Reader, name string, limit, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	if int64(buf.Len()) > limit {
		return nil, &Error{Name: name, Limit: limit, Err: ErrTooLarge}
	}
	return buf.Bytes(), nil
}

// Within joins rel to root and refuses a result outside root (an absolute
// rel, "..", or a symbolic link that leads out).
func Within(root, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", &Error{Name: filepath.Base(rel), Err: ErrOutside}
	}
	p := filepath.Join(root, rel)
	if !inside(root, p) {
		return "", &Error{Name: filepath.Base(rel), Err: ErrOutside}
	}
	rootReal, err1 := filepath.EvalSymlinks(root)
	real, err2 := filepath.EvalSymlinks(p)
	if err1 == nil && err2 == nil && !inside(rootReal, real) {
		return "", &Error{Name: filepath.Base(rel), Err: ErrOutside}
	}
	return p, nil
}

func inside(root, p string) bool {
	r, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
