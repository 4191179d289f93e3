// Package docs keeps the project's documentation true to the tree: its
// test reads docs/*.md and README.md and checks that every repository path
// they name exists. It has no code of its own.
package docs
