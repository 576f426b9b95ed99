package container

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
)

// writeTar writes the directories and symbolic links under root to a tar
// file, for a runtime that imports images rather than running a
// directory.
func writeTar(name, root string) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := tar.NewWriter(f)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: rel, Mode: 0o755, Typeflag: tar.TypeDir}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			h = &tar.Header{Name: rel, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: target}
		} else if !d.IsDir() {
			return nil
		}
		return w.WriteHeader(h)
	})
	if err != nil {
		return err
	}
	return w.Close()
}
