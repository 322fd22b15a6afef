//go:build unix && !linux

package symbols

// mapPopulate: this system has no MAP_POPULATE; pages map as they are read.
const mapPopulate = 0
