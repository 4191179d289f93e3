//go:build !windows

package install

import "errors"

// Only Windows has a registry; locations elsewhere never carry a key.

var errNoRegistry = errors.New("install: no registry on this OS")

func setRegistry(system bool, key, value string) (changed bool, err error) {
	return false, errNoRegistry
}

func deleteRegistry(system bool, key, value string) (removed bool, current string, err error) {
	return false, "", errNoRegistry
}

func readRegistry(system bool, key string) (string, error) { return "", errNoRegistry }
