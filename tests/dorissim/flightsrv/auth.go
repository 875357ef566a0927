package flightsrv

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// maxTokens bounds the token cache like Doris's arrow_flight_token_cache_size;
// the least recently used token is evicted (and its session closed).
const maxTokens = 1024

type tokenEntry struct {
	user     string
	sess     Session
	mu       sync.Mutex // serializes statements of one session
	lastUsed time.Time
}

type tokens struct {
	mu     sync.Mutex
	engine Engine
	byTok  map[string]*tokenEntry
}

func newTokens(e Engine) *tokens { return &tokens{engine: e, byTok: map[string]*tokenEntry{}} }

func (t *tokens) issue(user string) string {
	tok := newID()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byTok) >= maxTokens {
		t.evictOldestLocked()
	}
	t.byTok[tok] = &tokenEntry{user: user, sess: t.engine.NewSession(user), lastUsed: time.Now()}
	return tok
}

func (t *tokens) evictOldestLocked() {
	var oldest string
	var at time.Time
	for k, e := range t.byTok {
		if oldest == "" || e.lastUsed.Before(at) {
			oldest, at = k, e.lastUsed
		}
	}
	if e := t.byTok[oldest]; e != nil {
		delete(t.byTok, oldest)
		e.sess.Close()
	}
}

func (t *tokens) lookup(tok string) *tokenEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.byTok[tok]
	if e != nil {
		e.lastUsed = time.Now()
	}
	return e
}

func (t *tokens) closeAll() {
	t.mu.Lock()
	all := t.byTok
	t.byTok = map[string]*tokenEntry{}
	t.mu.Unlock()
	for _, e := range all {
		e.sess.Close()
	}
}

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

// authenticate resolves the caller's token entry from the authorization
// header. Basic credentials are accepted on any call, as Doris's bearer
// authenticator does, and answered with a fresh bearer header.
func (t *tokens) authenticate(ctx context.Context) (*tokenEntry, string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return nil, "", status.Error(codes.Unauthenticated, "no authorization header")
	}
	v := vals[0]
	if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
		e := t.lookup(tok)
		if e == nil {
			return nil, "", status.Error(codes.Unauthenticated, "invalid bearer token")
		}
		return e, tok, nil
	}
	user, pass, ok := parseBasic(v)
	if !ok || !t.engine.Authenticate(user, pass) {
		return nil, "", status.Errorf(codes.Unauthenticated, "Access denied for user '%s'", user)
	}
	tok := t.issue(user)
	return t.lookup(tok), tok, nil
}

const handshakeMethod = "/arrow.flight.protocol.FlightService/Handshake"

// unaryAuth checks the bearer on every FE unary call.
func (s *Service) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	s.delay(ctx)
	e, tok, err := s.tokens.authenticate(ctx)
	if err != nil {
		return nil, err
	}
	_ = grpc.SetHeader(ctx, metadata.Pairs("authorization", "Bearer "+tok))
	return h(context.WithValue(ctx, entryKey{}, e), req)
}

// streamAuth checks the bearer on every FE streaming call except Handshake,
// which authenticates itself.
func (s *Service) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	s.delay(ss.Context())
	if info.FullMethod == handshakeMethod {
		return h(srv, ss)
	}
	e, tok, err := s.tokens.authenticate(ss.Context())
	if err != nil {
		return err
	}
	_ = ss.SetHeader(metadata.Pairs("authorization", "Bearer "+tok))
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
