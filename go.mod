module flamekit

go 1.25

require (
	github.com/alecthomas/kong v1.17.0
	github.com/klauspost/pgzip v1.3.0
)

require github.com/klauspost/compress v1.20.3 // indirect
