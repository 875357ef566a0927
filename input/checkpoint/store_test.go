package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	"github.com/redpanda-data/benthos/v4/public/service"
)

const testKey = "doris_binlog_db_orders"

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mockRes() *service.Resources {
	return service.MockResources(service.MockResourcesOptAddCache("cp"))
}

// fileRes builds a real `file` cache resource over dir.
func fileRes(t *testing.T, dir string) *service.Resources {
	t.Helper()
	rb := service.NewResourceBuilder()
	if err := rb.AddCacheYAML("label: cp\nfile:\n  directory: " + dir + "\n"); err != nil {
		t.Fatal(err)
	}
	res, closeFn, err := rb.Build()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = closeFn(ctx)
	})
	return res
}

func rawSet(t *testing.T, res *service.Resources, key string, val []byte) {
	t.Helper()
	ctx := testCtx(t)
	var setErr error
	if err := res.AccessCache(ctx, "cp", func(c service.Cache) { setErr = c.Set(ctx, key, val, nil) }); err != nil || setErr != nil {
		t.Fatalf("set %s: %v %v", key, err, setErr)
	}
}

func rawGet(t *testing.T, res *service.Resources, key string) ([]byte, error) {
	t.Helper()
	ctx := testCtx(t)
	var (
		val    []byte
		getErr error
	)
	if err := res.AccessCache(ctx, "cp", func(c service.Cache) { val, getErr = c.Get(ctx, key) }); err != nil {
		t.Fatal(err)
	}
	return val, getErr
}

func TestStoreEmptyLoad(t *testing.T) {
	st, info, err := NewStore(mockRes(), "cp", testKey).Load(testCtx(t))
	if err != nil || st != nil || info != (LoadInfo{}) {
		t.Fatalf("got %+v %+v %v", st, info, err)
	}
}

func TestStoreSaveLoadRoundTrip(t *testing.T) {
	for name, res := range map[string]*service.Resources{
		"mock": mockRes(),
		"file": fileRes(t, t.TempDir()),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			s := NewStore(res, "cp", testKey)
			want := validState()
			want.Seq = 0
			if err := s.Save(ctx, want); err != nil {
				t.Fatal(err)
			}
			if want.Seq != 1 || want.SavedAt.IsZero() {
				t.Fatalf("Save did not stamp seq/saved_at: %+v", want)
			}
			want.Tables["db.orders"].Phase = PhaseDone
			if err := s.Save(ctx, want); err != nil {
				t.Fatal(err)
			}
			// Both copies hold the latest save.
			for _, k := range []string{testKey, testKey + ".bak"} {
				b, err := rawGet(t, res, k)
				if err != nil {
					t.Fatalf("get %s: %v", k, err)
				}
				got, err := Decode(b)
				if err != nil || got.Seq != 2 || got.Tables["db.orders"].Phase != PhaseDone {
					t.Fatalf("%s holds %+v (%v)", k, got, err)
				}
			}
			// A fresh store (a restart) sees the same state and keeps counting.
			s2 := NewStore(res, "cp", testKey)
			got, info, err := s2.Load(ctx)
			if err != nil || got == nil {
				t.Fatalf("Load: %+v %v", got, err)
			}
			if info != (LoadInfo{}) {
				t.Fatalf("unexpected info %+v", info)
			}
			if got.Seq != 2 || !Equal(got, want) {
				t.Fatalf("loaded %+v, want %+v", got, want)
			}
			next := done("db.orders")
			if err := s2.Save(ctx, next); err != nil || next.Seq != 3 {
				t.Fatalf("seq after restart: %d %v", next.Seq, err)
			}
		})
	}
}

func TestStoreTornWrites(t *testing.T) {
	older := &State{Tables: map[string]*Table{"db.orders": {Phase: PhaseSnapshot, DoneTablets: []int64{1}}}, Seq: 4}
	newer := &State{Tables: map[string]*Table{"db.orders": {Phase: PhaseSnapshot, DoneTablets: []int64{1, 2}}}, Seq: 5}
	enc := func(s *State) []byte {
		b, err := Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name         string
		primary, bak []byte // nil = absent
		wantSeq      uint64 // 0 = want nil state
		wantBackup   bool
		wantCorrupt  string
		wantErr      string
	}{
		{name: "primary empty (crash during primary write)", primary: []byte{}, bak: enc(newer), wantSeq: 5, wantBackup: true, wantCorrupt: testKey},
		{name: "primary partial", primary: enc(newer)[:20], bak: enc(newer), wantSeq: 5, wantBackup: true, wantCorrupt: testKey},
		{name: "backup partial (crash during backup write)", primary: enc(older), bak: enc(newer)[:31], wantSeq: 4, wantCorrupt: testKey + ".bak"},
		{name: "backup garbage", primary: enc(older), bak: []byte("\xff\xfe"), wantSeq: 4, wantCorrupt: testKey + ".bak"},
		{name: "backup newer (primary write failed)", primary: enc(older), bak: enc(newer), wantSeq: 5, wantBackup: true},
		{name: "primary newer", primary: enc(newer), bak: enc(older), wantSeq: 5},
		{name: "only primary", primary: enc(older), wantSeq: 4},
		{name: "only backup", bak: enc(older), wantSeq: 4, wantBackup: true},
		{name: "first save torn", bak: []byte(`{"vers`), wantCorrupt: testKey + ".bak"},
		{name: "both corrupt", primary: []byte{}, bak: []byte("{}"), wantErr: "both copies are unusable"},
		{name: "primary corrupt, backup missing", primary: []byte("nope"), wantErr: "backup \"" + testKey + ".bak\" is missing"},
	}
	for _, tc := range cases {
		for name, mk := range map[string]func() *service.Resources{
			"mock": mockRes,
			"file": func() *service.Resources { return fileRes(t, t.TempDir()) },
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				res := mk()
				if tc.primary != nil {
					rawSet(t, res, testKey, tc.primary)
				}
				if tc.bak != nil {
					rawSet(t, res, testKey+".bak", tc.bak)
				}
				st, info, err := NewStore(res, "cp", testKey).Load(testCtx(t))
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrCorrupt) {
						t.Fatalf("got %+v, %v; want error containing %q", st, err, tc.wantErr)
					}
					if !strings.Contains(err.Error(), "is corrupt: ") {
						t.Fatalf("error does not say corrupt: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if tc.wantSeq == 0 && st != nil || tc.wantSeq != 0 && (st == nil || st.Seq != tc.wantSeq) {
					t.Fatalf("got state %+v, want seq %d", st, tc.wantSeq)
				}
				if info.FromBackup != tc.wantBackup || info.CorruptKey != tc.wantCorrupt {
					t.Fatalf("info %+v, want backup=%v corrupt=%q", info, tc.wantBackup, tc.wantCorrupt)
				}
				if tc.wantCorrupt != "" && !errors.Is(info.CorruptErr, ErrCorrupt) {
					t.Fatalf("CorruptErr %v", info.CorruptErr)
				}
			})
		}
	}
}

func TestStoreSaveRepairsAfterFallback(t *testing.T) {
	ctx := testCtx(t)
	res := mockRes()
	s := NewStore(res, "cp", testKey)
	if err := s.Save(ctx, withSeq(done("db.t"), 9)); err != nil {
		t.Fatal(err)
	}
	rawSet(t, res, testKey, nil) // torn primary
	s2 := NewStore(res, "cp", testKey)
	st, info, err := s2.Load(ctx)
	if err != nil || st.Seq != 10 || !info.FromBackup {
		t.Fatalf("%+v %+v %v", st, info, err)
	}
	if err := s2.Save(ctx, st); err != nil || st.Seq != 11 {
		t.Fatalf("save: %v seq %d", err, st.Seq)
	}
	if _, info, err := NewStore(res, "cp", testKey).Load(ctx); err != nil || info != (LoadInfo{}) {
		t.Fatalf("not repaired: %+v %v", info, err)
	}
}

func TestStoreFileTornOnDisk(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	res := fileRes(t, dir)
	s := NewStore(res, "cp", testKey)
	if err := s.Save(ctx, done("db.t")); err != nil {
		t.Fatal(err)
	}
	// What SIGKILL leaves after the file cache truncated the primary.
	if err := os.Truncate(filepath.Join(dir, testKey), 0); err != nil {
		t.Fatal(err)
	}
	st, info, err := NewStore(res, "cp", testKey).Load(ctx)
	if err != nil || st == nil || st.Seq != 1 || !info.FromBackup || info.CorruptKey != testKey {
		t.Fatalf("%+v %+v %v", st, info, err)
	}
}

func TestStoreUnknownCacheAndNil(t *testing.T) {
	ctx := testCtx(t)
	s := NewStore(mockRes(), "nope", testKey)
	if _, _, err := s.Load(ctx); err == nil || !strings.Contains(err.Error(), `cache "nope"`) {
		t.Fatalf("Load: %v", err)
	}
	if err := s.Save(ctx, done("db.t")); err == nil || !strings.Contains(err.Error(), `cache "nope"`) {
		t.Fatalf("Save: %v", err)
	}
	if err := s.Save(ctx, nil); err == nil {
		t.Fatal("Save(nil) succeeded")
	}
	if err := NewStore(mockRes(), "cp", testKey).Save(ctx, &State{}); err == nil || !strings.Contains(err.Error(), "tables is missing") {
		t.Fatalf("invalid state saved: %v", err)
	}
}

func TestSanitizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"doris_binlog_db_orders": "doris_binlog_db_orders",
		"db.orders":              "db.orders",
		"a/b c:d":                "a_b_c_d",
		"../etc/passwd":          ".._etc_passwd",
		"":                       "_",
		".":                      "_",
		"..":                     "__",
		"ключ":                   "____",
		"x-y_Z.9":                "x-y_Z.9",
	} {
		if got := SanitizeKey(in); got != want {
			t.Errorf("SanitizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func done(table string) *State {
	return &State{Tables: map[string]*Table{table: {Phase: PhaseDone}}}
}

func withSeq(s *State, seq uint64) *State {
	s.Seq = seq
	return s
}
