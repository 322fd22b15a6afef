// Package otlp writes and pushes OpenTelemetry profiles (OTLP, the
// opentelemetry.proto.profiles.v1development messages; see ProtoVersion
// for the pinned module): an ExportProfilesServiceRequest made from the
// same samples the pprof output has.
//
// [Build] takes a pprof.Builder fed as for pprof (folded records, the
// capture's metadata, a wall-clock reference) and walks its samples
// (pprof.Builder.Walk: one per stack, CPU, thread and Resolution interval
// on the wall clock), giving:
//
//   - a resource with service.name and host.name, one scope ("flamekit");
//   - one Profile (or one per Options.Split interval, all in the one
//     request), whose sample type is the pprof weight (cpu/nanoseconds for
//     cpu-clock, ...), with the sampled event as the profile attribute
//     perf.event;
//   - one Sample per stack, CPU, thread and Resolution interval, with one
//     value and one timestamps_unix_nano (wall clock, the interval's
//     start), not one Sample per stack with a series of points, which the
//     spec allows but Grafana Pyroscope refuses (it copies the values of
//     a Sample into one pprof sample), with the attributes cpu.logical_number,
//     process.pid, thread.id and process.executable.name (the comm: the
//     stack's root frame, which stays in the stack as in pprof);
//   - the dictionary: each frame name one Function and one Location (no
//     address: folded frames are names), the capture's mapped files with
//     their GNU build-ids (process.executable.build_id.gnu) from
//     pprof.Options.Mappings; with pprof.Options.Addresses, each
//     Location an address (address, mapping_index) in a Mapping of its
//     process (memory_start, memory_limit, file_offset, the file, its
//     build-id), with its names as lines, or none for the reader to
//     symbolize (pprof.AddressesOnly).
//
// [Push] sends a request to an OTLP/HTTP receiver (Grafana Pyroscope,
// the OpenTelemetry Collector) at URL + [Path], as application/x-protobuf,
// through a pyroscope.Client: its retries with backoff on network errors,
// 429 and 5xx, its auth, and its bound on the total time.
package otlp
