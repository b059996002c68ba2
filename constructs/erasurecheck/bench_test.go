package erasurecheck

import (
	"os"
	"testing"
)

// BenchmarkCheckAssembly is one run of the check (the plugin's, with the
// access matrix) over the cloud assembly ERASURECHECK_BENCH_ASSEMBLY names;
// make bench-check-go synthesizes the channel with 100 stores for it.
func BenchmarkCheckAssembly(b *testing.B) {
	dir := os.Getenv("ERASURECHECK_BENCH_ASSEMBLY")
	if dir == "" {
		b.Skip("set ERASURECHECK_BENCH_ASSEMBLY to a cloud assembly (make bench-check-go)")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckPaths([]string{dir}, Config{Access: true}); err != nil {
			b.Fatal(err)
		}
	}
}
