package symbols

import "syscall"

// mapPopulate is mmap's flag that maps the whole range at once.
const mapPopulate = syscall.MAP_POPULATE
