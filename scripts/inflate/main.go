// Command inflate decompresses gzip files with klauspost/compress (the
// library readygap reads them with) on several goroutines and discards the
// output: the decompression limit that ingest of .gz objects is measured
// against. It prints the number of bytes inflated.
//
//	go run ./scripts/inflate -j 2 objects/*.log.gz
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	kgzip "github.com/klauspost/compress/gzip"
)

func main() {
	workers := flag.Int("j", runtime.GOMAXPROCS(0), "files inflated at once")
	flag.Parse()
	files := make(chan string)
	var total atomic.Int64
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for name := range files {
				n, err := inflate(name, buf)
				if err != nil {
					log.Fatalf("%s: %v", name, err)
				}
				total.Add(n)
			}
		}()
	}
	for _, f := range flag.Args() {
		files <- f
	}
	close(files)
	wg.Wait()
	fmt.Println(total.Load())
}

// inflate decompresses one file into buf, over and over, and returns its size.
func inflate(name string, buf []byte) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := kgzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return 0, err
	}
	return io.CopyBuffer(io.Discard, struct{ io.Reader }{zr}, buf)
}
