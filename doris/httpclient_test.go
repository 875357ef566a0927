package doris

import (
	"crypto/tls"
	"net/http"
	"testing"
	"time"
)

func TestNewHTTPClient(t *testing.T) {
	conf := &tls.Config{ServerName: "fe1"}
	hc := NewHTTPClient(ClientConfig{TLS: conf, ConnectTimeout: 2 * time.Second, ReadTimeout: 7 * time.Second})
	tr := hc.Transport.(*http.Transport)
	if tr.TLSClientConfig == conf || tr.TLSClientConfig.ServerName != "fe1" {
		t.Fatal("the TLS config must be a clone of the caller's")
	}
	if tr.TLSHandshakeTimeout != 2*time.Second || tr.ResponseHeaderTimeout != 7*time.Second || tr.Proxy == nil || tr.MaxIdleConnsPerHost != 4 || tr.ExpectContinueTimeout != 0 {
		t.Fatalf("transport %+v", tr)
	}
	if hc.CheckRedirect(nil, nil) != http.ErrUseLastResponse {
		t.Fatal("redirects must never be followed by net/http")
	}
	load := NewHTTPClient(ClientConfig{}, WithExpectContinue(3*time.Second), WithIdleConnsPerHost(8)).Transport.(*http.Transport)
	if load.ExpectContinueTimeout != 3*time.Second || load.MaxIdleConnsPerHost != 8 || load.TLSClientConfig != nil ||
		load.TLSHandshakeTimeout != defaultConnectTimeout || load.ResponseHeaderTimeout != defaultReadTimeout {
		t.Fatalf("options or defaults not applied: %+v", load)
	}
}
