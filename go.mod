module flamekit

go 1.25

require (
	github.com/alecthomas/kong v1.17.0
	github.com/chromedp/cdproto v0.159.2
	github.com/chromedp/chromedp v0.23.0
	github.com/google/pprof v0.0.0-20260302011040-a15ffb7f9dcc
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.3
	github.com/klauspost/pgzip v1.3.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	go.opentelemetry.io/proto/slim/otlp v1.10.0 // indirect
	go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development v0.3.0 // indirect
	go.opentelemetry.io/proto/slim/otlp/profiles/v1development v0.3.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
