package flightsrv

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// parseBasic decodes "Basic base64(user:pass)", padded or not: arrow-go sends
// unpadded base64 and the Java FE accepts both.
func parseBasic(v string) (user, pass string, ok bool) {
	enc, found := strings.CutPrefix(v, "Basic ")
	if !found {
		return "", "", false
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	return user, pass, ok
}

type entryKey struct{}

// authenticate resolves the caller's session from the authorization
// header. Basic credentials are accepted on any call, as Doris's bearer
// authenticator does: each such call opens a session of its own, refused
// with RESOURCE_EXHAUSTED when the connection pool is full, and is
// answered with the new session's bearer token.
func (t *tokens) authenticate(ctx context.Context) (*tokenEntry, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return nil, status.Error(codes.Unauthenticated, "no authorization header")
	}
	v := vals[0]
	if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
		e := t.lookup(tok)
		if e == nil {
			return nil, status.Error(codes.Unauthenticated, noSessionText)
		}
		return e, nil
	}
	user, pass, ok := parseBasic(v)
	if !ok || !t.engine.Authenticate(user, pass) {
		return nil, status.Errorf(codes.Unauthenticated, "Access denied for user '%s'", user)
	}
	return t.open(user)
}

const handshakeMethod = "/arrow.flight.protocol.FlightService/Handshake"

// unaryAuth checks the bearer on every FE unary call.
func (s *Service) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	s.delay(ctx)
	e, err := s.tokens.authenticate(ctx)
	if err != nil {
		return nil, err
	}
	defer e.conn.Begin()()
	_ = grpc.SetHeader(ctx, metadata.Pairs("authorization", "Bearer "+e.token))
	return h(context.WithValue(ctx, entryKey{}, e), req)
}

// streamAuth checks the bearer on every FE streaming call except Handshake,
// which authenticates itself.
func (s *Service) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	s.delay(ss.Context())
	if info.FullMethod == handshakeMethod {
		return h(srv, ss)
	}
	e, err := s.tokens.authenticate(ss.Context())
	if err != nil {
		return err
	}
	defer e.conn.Begin()()
	_ = ss.SetHeader(metadata.Pairs("authorization", "Bearer "+e.token))
	return h(srv, &ctxStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), entryKey{}, e)})
}

// beUnary and beStream apply the latency fault on the unauthenticated BE.
func (s *Service) beUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	s.delay(ctx)
	return h(ctx, req)
}

func (s *Service) beStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	s.delay(ss.Context())
	return h(srv, ss)
}

func (s *Service) delay(ctx context.Context) {
	d := s.cfg.Hooks.Latency()
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }

func entryFrom(ctx context.Context) *tokenEntry {
	e, _ := ctx.Value(entryKey{}).(*tokenEntry)
	return e
}
