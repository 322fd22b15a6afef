package otlp

// The one place that names the OTLP profiles proto version: a later
// version is a change of these imports, Path and the aliases below (and
// of the go.mod lines), then whatever fields it renamed in build.go.

import (
	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	resourcepb "go.opentelemetry.io/proto/slim/otlp/resource/v1"
)

// ProtoVersion is the OTLP profiles proto package version written and
// pushed: opentelemetry.proto.profiles.v1development, through the Go
// modules go.opentelemetry.io/proto/slim/otlp/profiles/v1development and
// .../collector/profiles/v1development v0.3.0 (the "slim" modules: the
// messages without gRPC).
const ProtoVersion = "v1development"

// Path is where an OTLP/HTTP receiver takes profiles of this version
// (Pyroscope, the OpenTelemetry Collector).
const Path = "/v1development/profiles"

// Request is the message written and pushed:
// ExportProfilesServiceRequest.
type Request = collectorpb.ExportProfilesServiceRequest

// Response is a receiver's answer, which may report rejected profiles.
type Response = collectorpb.ExportProfilesServiceResponse

// The messages a Request is made of.
type (
	ResourceProfiles   = profilespb.ResourceProfiles
	ScopeProfiles      = profilespb.ScopeProfiles
	Profile            = profilespb.Profile
	ProfilesDictionary = profilespb.ProfilesDictionary
	Sample             = profilespb.Sample
	Stack              = profilespb.Stack
	Location           = profilespb.Location
	Line               = profilespb.Line
	Function           = profilespb.Function
	Mapping            = profilespb.Mapping
	ValueType          = profilespb.ValueType
	KeyValueAndUnit    = profilespb.KeyValueAndUnit
	profilesLink       = profilespb.Link
	KeyValue           = commonpb.KeyValue
	AnyValue           = commonpb.AnyValue
	Scope              = commonpb.InstrumentationScope
	Resource           = resourcepb.Resource
)

func stringValue(s string) *AnyValue {
	return &AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func intValue(v int64) *AnyValue {
	return &AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}
}
