package output

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rpconnect-doris/rpconnect-doris/doris"
)

// keyModels holds the target tables' key models, each looked up once for
// the output's life.
type keyModels struct {
	fe *doris.Client // GET /api/{db}/{table}/_schema
	mu sync.Mutex
	m  map[string]string // target -> keysType
}

func newKeyModels(fe *doris.Client) *keyModels {
	return &keyModels{fe: fe, m: map[string]string{}}
}

// of returns the part's target's keysType.
func (k *keyModels) of(ctx context.Context, p *part) (string, error) {
	k.mu.Lock()
	m, ok := k.m[p.target]
	k.mu.Unlock()
	if ok {
		return m, nil
	}
	s, err := doris.Schema(ctx, k.fe, p.db, p.table)
	if err != nil {
		return "", fmt.Errorf("key model of %s: %w", p.target, err)
	}
	m = strings.ToUpper(s.KeysType)
	k.mu.Lock()
	k.m[p.target] = m
	k.mu.Unlock()
	return m, nil
}

// needsModel reports whether encoding depends on the table's key model.
func needsModel(c *config, p *part) bool {
	return p.cdc || c.seqCol != ""
}
