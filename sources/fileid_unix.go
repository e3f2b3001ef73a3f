//go:build unix

package sources

import (
	"io/fs"
	"syscall"
)

// fileID names a file whatever path reaches it: its device and inode.
type fileID struct{ dev, ino uint64 }

// idOf returns the identity of the file st describes; ok is false when
// the system gives none.
func idOf(st fs.FileInfo) (id fileID, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	// The fields' types differ between systems (Dev is int32 on macOS).
	return fileID{uint64(sys.Dev), uint64(sys.Ino)}, true
}
