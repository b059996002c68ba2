package main

import (
	"fmt"
	"io"
	"os"
)

// readBounded reads a regular file of at most limit bytes. A FIFO, device
// or directory, or a larger file, is an error naming the file and the
// limit, never its content.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be opened", path)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is larger than its limit of %d bytes", path, limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read", path)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than its limit of %d bytes", path, limit)
	}
	return b, nil
}
