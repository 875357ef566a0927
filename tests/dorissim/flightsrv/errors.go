package flightsrv

import (
	"context"
	"errors"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rpconnect-doris/rpconnect-doris/tests/dorissim/storage"
)

// Window error codes (apache/doris#67820).
const (
	codeWindowNotReady     = 5100
	codeVisibleWaitTimeout = 5101
)

// queryError maps an engine error to the gRPC error the Doris FE returns:
// window errors as UNAVAILABLE with doris-error-* metadata, everything else
// as INTERNAL with Doris's description text.
func queryError(ctx context.Context, err error) error {
	var se *storage.Error
	if !errors.As(err, &se) {
		return status.Errorf(codes.Internal,
			"get flight info statement failed, errCode = 2, detailMessage = %s, error code: 1105, error msg: %s", err, err)
	}
	if se.Code == codeWindowNotReady || se.Code == codeVisibleWaitTimeout {
		md := metadata.Pairs("doris-error-code", strconv.Itoa(se.Code), "doris-error-name", windowErrorName(se))
		_ = grpc.SetHeader(ctx, md)
		_ = grpc.SetTrailer(ctx, md)
		return status.Error(codes.Unavailable, se.Message)
	}
	return status.Errorf(codes.Internal,
		"get flight info statement failed, errCode = 2, detailMessage = %s, error code: %d, error msg: %s", se.Message, se.Code, se.Message)
}

func windowErrorName(se *storage.Error) string {
	if se.Name != "" {
		return se.Name
	}
	if se.Code == codeWindowNotReady {
		return "ERR_INCR_WINDOW_NOT_READY"
	}
	return "ERR_INCR_VISIBLE_WAIT_TIMEOUT"
}
