package input

import "github.com/redpanda-data/benthos/v4/public/service"

// warnPlaintextEndpoints says at start that allow_plaintext_endpoints weakens
// tls: the bearer token and rows may then cross the network unencrypted.
func warnPlaintextEndpoints(conf *Config, log *service.Logger) {
	if !conf.AllowPlaintextEndpoints {
		return
	}
	if !conf.TLSEnabled {
		log.Warnf("%s is set but tls is not enabled: every Arrow Flight connection is plaintext anyway", fieldAllowPlaintextEndpoints)
		return
	}
	log.Warnf("%s is true: Arrow Flight endpoints that Doris advertises as grpc+tcp:// are dialled without TLS, "+
		"so the FE bearer token and the rows fetched from them travel unencrypted", fieldAllowPlaintextEndpoints)
}
