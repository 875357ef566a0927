// Command gendocs writes the components' reference pages (docs/reference)
// from their config specs; `make docs` runs it from the module root, and
// package refdocs's test fails while a committed page differs.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rpconnect-doris/rpconnect-doris/internal/refdocs"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run() error {
	pages, err := refdocs.Render()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(refdocs.Dir, 0o755); err != nil {
		return err
	}
	for name, body := range pages {
		path := filepath.Join(refdocs.Dir, name)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	// A page whose component is gone would otherwise stay behind, stale.
	stale, err := refdocs.Unexpected(refdocs.Dir, pages)
	if err != nil {
		return err
	}
	for _, name := range stale {
		path := filepath.Join(refdocs.Dir, name)
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
	}
	return nil
}
