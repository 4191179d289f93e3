package install

import (
	"errors"
	"strings"

	"golang.org/x/sys/windows/registry"
)

func root(system bool) registry.Key {
	if system {
		return registry.LOCAL_MACHINE
	}
	return registry.CURRENT_USER
}

// setRegistry points key's default value at value; changed is false when
// it already did.
func setRegistry(system bool, key, value string) (changed bool, err error) {
	if cur, err := readRegistry(system, key); err == nil && strings.EqualFold(cur, value) {
		return false, nil
	}
	k, _, err := registry.CreateKey(root(system), key, registry.SET_VALUE)
	if err != nil {
		return false, err
	}
	defer k.Close()
	return true, k.SetStringValue("", value)
}

// deleteRegistry removes key when its default value is value. When the key
// names another file it is left alone and current says which.
func deleteRegistry(system bool, key, value string) (removed bool, current string, err error) {
	cur, err := readRegistry(system, key)
	if errors.Is(err, registry.ErrNotExist) {
		return false, "", nil
	}
	if err != nil {
		return false, "", err
	}
	if !strings.EqualFold(cur, value) {
		return false, cur, nil
	}
	if err := registry.DeleteKey(root(system), key); err != nil {
		return false, cur, err
	}
	return true, cur, nil
}

// readRegistry returns key's default value.
func readRegistry(system bool, key string) (string, error) {
	k, err := registry.OpenKey(root(system), key, registry.QUERY_VALUE)
	if err != nil {
		return "", err
	}
	defer k.Close()
	v, _, err := k.GetStringValue("")
	return v, err
}
