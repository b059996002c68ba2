package erasure_test

import "os"

// tempDir is a fresh directory for an example's cloud assembly.
func tempDir() string {
	d, err := os.MkdirTemp("", "erasure-example")
	if err != nil {
		panic(err)
	}
	return d
}
