//go:build !unix

package symbols

import (
	"errors"
	"os"
)

func fileIdentity(*os.File) ([]byte, bool) { return nil, false }

func pathIdentity(string) ([]byte, bool) { return nil, false }

func privateDir(string, uint32) error {
	return errors.New("symbol table cache: not supported on this system")
}

func ownedBy(string, uint32) bool { return false }
