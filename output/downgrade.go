package output

import (
	"fmt"
	"net/url"

	"github.com/redpanda-data/benthos/v4/public/service"
)

// downgradeError is a redirect from https to plain http that was refused:
// following it would send the Basic credentials and the rows unencrypted.
type downgradeError struct {
	from, to string // redacted URLs
}

func (e *downgradeError) Error() string {
	return fmt.Sprintf("%s redirected the request to %s, from https to plain http: refused, because the credentials and rows would travel unencrypted "+
		"(set %s: true only if the BEs serve plain http on purpose)", e.from, e.to, fieldAllowPlaintextRedirects)
}

// checkHop refuses the https-to-http redirect unless allow_plaintext_redirects
// is set. It runs before the next request exists, so not even the
// Authorization header of that request is ever sent.
func (t *transport) checkHop(from *url.URL, next string) error {
	to, err := url.Parse(next)
	if err != nil {
		return fmt.Errorf("%s redirected to an invalid Location: %w", redact(from), err)
	}
	if from.Scheme != "https" || to.Scheme != "http" || t.allowPlainHop {
		return nil
	}
	return &downgradeError{from: redact(from), to: redact(to)}
}

// warnPlaintextRedirects says at start that allow_plaintext_redirects
// weakens tls.
func warnPlaintextRedirects(conf *config, log *service.Logger) {
	switch {
	case !conf.allowPlainHop:
	case conf.conn.TLSEnabled:
		log.Warnf("%s is true: a load that an https FE redirects to a plain http BE is followed, so the credentials and rows travel unencrypted to that BE", fieldAllowPlaintextRedirects)
	default:
		log.Warnf("%s is set but tls is not enabled: every load is plain http anyway", fieldAllowPlaintextRedirects)
	}
}
