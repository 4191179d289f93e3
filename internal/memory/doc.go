// Package memory is how a Gasoline process keeps its memory flat and shows
// it: the release at rest that hands freed heap and the binary's clean
// pages back to the system after each burst of work (Rest, Release), the
// Go runtime's own figures (ReadRuntime), and the report of what each
// store holds against its bound (Store, Report).
package memory
