package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"

	"flamekit/pkg/interop/pyroscope"
)

// ContentType is the body's type for OTLP/HTTP in binary protobuf.
const ContentType = "application/x-protobuf"

// PartialError is a push the receiver accepted in part: it says in its
// answer (partial_success) that it rejected some profiles. Sending it
// again would count the others twice.
type PartialError struct {
	Rejected int64
	Message  string
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("the receiver accepted the push but rejected %d profiles: %s", e.Rejected, e.Message)
}

// Push sends body (a Request, see Marshal) to the receiver at c's URL +
// Path, gzipped (Content-Encoding: gzip, which OTLP/HTTP receivers take:
// about a fifth of the bytes). A 2xx answer whose partial_success rejects
// profiles is a *PartialError. It returns the bytes sent.
func Push(ctx context.Context, c *pyroscope.Client, body []byte) (pyroscope.Result, int, error) {
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	zw.Write(body) // a bytes.Buffer does not fail
	zw.Close()
	hdr := http.Header{"Content-Type": {ContentType}, "Content-Encoding": {"gzip"}}
	res, answer, err := c.Post(ctx, Path, nil, hdr, z.Bytes())
	sent := z.Len()
	if err != nil {
		return res, sent, err
	}
	if len(answer) > 0 {
		var resp Response
		// An answer that is not the protobuf response (a JSON or empty
		// 200 from a proxy) is taken as the 2xx it is.
		if unmarshal(answer, &resp) == nil {
			if ps := resp.GetPartialSuccess(); ps != nil && ps.GetRejectedProfiles() > 0 {
				return res, sent, &PartialError{Rejected: ps.GetRejectedProfiles(), Message: ps.GetErrorMessage()}
			}
		}
	}
	return res, sent, nil
}
