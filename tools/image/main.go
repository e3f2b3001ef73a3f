// Command image builds readygap's container image without a Docker daemon,
// as an OCI image layout, and verifies one.
//
//	go run . build -bin ../../dist/build -version v1.2.3 -commit SHA -created 2026-12-07T20:00:00Z -out ../../dist/image
//	go run . verify ../../dist/image
//
// The image is the static binary on an empty base: /usr/local/bin/readygap,
// /etc/passwd and /etc/group naming the non-root user 65532 it runs as, and
// the CA certificates of the build machine for the cloud APIs' TLS. One
// manifest per linux binary found under -bin (linux_amd64, linux_arm64),
// in one index, labelled and annotated with the OCI annotations.
// `crane push` (or skopeo) publishes the layout.
//
// It is its own module so that the registry client never enters the
// release binary's module graph.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: image build [flags] | image verify LAYOUT")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "verify":
		err = verify(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want build or verify", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}
