package state

import (
	"errors"
	"os"
	"path/filepath"
)

func defaultDir() (string, error) {
	if d := os.Getenv("LOCALAPPDATA"); d != "" {
		return filepath.Join(d, "Gasoline"), nil
	}
	return "", errors.New("state: LOCALAPPDATA is not set; set GASOLINE_HOME")
}
