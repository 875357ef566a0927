// Package offsetcmd is `rpconnect-doris offsets`: it shows the checkpoint
// of a doris_binlog input, sets where one of its tables streams from, and
// makes tables take a new snapshot, for a stopped pipeline. It reads the
// same config and resource files as `run`, builds the config's cache
// resources with Benthos's resource builder (so every cache the input can
// use works: file, doris, redis, memory), and finds the checkpoint key
// exactly as the input derives it (input.ParseCheckpointTarget).
package offsetcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"gopkg.in/yaml.v3"

	"github.com/rpconnect-doris/rpconnect-doris/input"
	"github.com/rpconnect-doris/rpconnect-doris/input/checkpoint"
)

// Config keys the command reads from a config file.
const (
	keyInput          = "input"
	keyInputResources = "input_resources"
	keyCacheResources = "cache_resources"
	keyLabel          = "label"
	inputName         = "doris_binlog"
)

// Options says which config to read.
type Options struct {
	// ConfigPath is the config file, as given to `run -c`.
	ConfigPath string
	// ResourcePaths are the `-r` resource files.
	ResourcePaths []string
	// InputLabel picks the doris_binlog input by its label when the files
	// hold more than one.
	InputLabel string
	// LookupEnv resolves ${VAR} references; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Target is an opened checkpoint: the input's checkpoint target and the
// cache resources it lives in.
type Target struct {
	*input.CheckpointTarget
	store  *checkpoint.Store
	legacy *checkpoint.Store // nil when the key was configured
	closer func(context.Context) error
	// secrets are the config's secret values, kept out of every output.
	secrets []string
}

// Open reads the config files, builds their cache resources and finds the
// doris_binlog input's checkpoint. Close the Target when done. Its errors
// hold none of the config's secrets.
func Open(ctx context.Context, opts Options) (*Target, error) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	var roots []*yaml.Node
	var secretValues []string
	for _, path := range append([]string{opts.ConfigPath}, opts.ResourcePaths...) {
		root, err := readConfig(path, opts.LookupEnv)
		if err != nil {
			return nil, err
		}
		roots = append(roots, root)
		secretValues = append(secretValues, secrets(root)...)
	}
	t, err := open(ctx, opts, roots)
	if err != nil {
		return nil, redactErr(err, secretValues)
	}
	t.secrets = secretValues
	return t, nil
}

func open(ctx context.Context, opts Options, roots []*yaml.Node) (*Target, error) {
	var found []inputNode
	var caches []*yaml.Node
	for i, root := range roots {
		if i == 0 {
			found = append(found, findInputs(mapValue(root, keyInput), "")...)
		}
		for _, res := range seqItems(mapValue(root, keyInputResources)) {
			found = append(found, findInputs(res, "")...)
		}
		caches = append(caches, seqItems(mapValue(root, keyCacheResources))...)
	}
	in, err := pickInput(found, opts.InputLabel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.ConfigPath, err)
	}
	res, closer, err := buildCaches(caches)
	if err != nil {
		return nil, err
	}
	t, err := openTarget(in, res)
	if err != nil {
		_ = closer(ctx)
		return nil, err
	}
	t.closer = closer
	return t, nil
}

func openTarget(in inputNode, res *service.Resources) (*Target, error) {
	text, err := yaml.Marshal(in.conf)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.describe(), err)
	}
	pc, err := input.Spec().ParseYAML(string(text), nil)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.describe(), err)
	}
	ct, err := input.ParseCheckpointTarget(pc, res)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in.describe(), err)
	}
	if ct.Cache == "" {
		return nil, fmt.Errorf("input %s: field checkpoint_cache is not set, so it keeps no checkpoint", in.describe())
	}
	t := &Target{CheckpointTarget: ct, store: checkpoint.NewStore(res, ct.Cache, ct.Key)}
	if ct.LegacyKey != "" && ct.LegacyKey != ct.Key {
		t.legacy = checkpoint.NewStore(res, ct.Cache, ct.LegacyKey)
	}
	return t, nil
}

// Close closes the cache resources.
func (t *Target) Close(ctx context.Context) error {
	if t.closer == nil {
		return nil
	}
	return t.closer(ctx)
}

func readConfig(path string, lookup func(string) (string, bool)) (*yaml.Node, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	text, err := expandEnv(string(b), lookup)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	}
	return doc.Content[0], nil
}

// inputNode is one doris_binlog config found in the files.
type inputNode struct {
	label string
	conf  *yaml.Node
}

func (in inputNode) describe() string {
	if in.label == "" {
		return inputName
	}
	return fmt.Sprintf("%s (label %s)", inputName, in.label)
}

// findInputs walks an input config, brokers and sequences included, for
// doris_binlog inputs.
func findInputs(n *yaml.Node, label string) []inputNode {
	var out []inputNode
	switch {
	case n == nil:
	case n.Kind == yaml.MappingNode:
		if l := mapValue(n, keyLabel); l != nil && l.Kind == yaml.ScalarNode {
			label = l.Value
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == inputName && v.Kind == yaml.MappingNode {
				out = append(out, inputNode{label: label, conf: v})
				continue
			}
			out = append(out, findInputs(v, "")...)
		}
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			out = append(out, findInputs(c, "")...)
		}
	}
	return out
}

func pickInput(found []inputNode, label string) (inputNode, error) {
	var labels []string
	for _, in := range found {
		if label != "" && in.label == label {
			return in, nil
		}
		labels = append(labels, fmt.Sprintf("%q", in.label))
	}
	switch {
	case label != "":
		return inputNode{}, fmt.Errorf("no %s input with label %q (found labels: %s)", inputName, label, strings.Join(labels, ", "))
	case len(found) == 0:
		return inputNode{}, fmt.Errorf("no %s input in the config or its resource files", inputName)
	case len(found) > 1:
		return inputNode{}, fmt.Errorf("%d %s inputs (labels %s): choose one with --input-label", len(found), inputName, strings.Join(labels, ", "))
	}
	return found[0], nil
}

// buildCaches builds the cache resources only: building the inputs and
// outputs too could connect or bind ports, which a report must not do.
func buildCaches(caches []*yaml.Node) (*service.Resources, func(context.Context) error, error) {
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: keyCacheResources},
		{Kind: yaml.SequenceNode, Content: caches},
	}}
	text, err := yaml.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("cache_resources: %w", err)
	}
	rb := service.NewResourceBuilder()
	rb.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := rb.AddYAML(string(text)); err != nil {
		return nil, nil, fmt.Errorf("cache_resources: %w", err)
	}
	res, closer, err := rb.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("building cache_resources: %w", err)
	}
	return res, closer, nil
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// errNoCheckpoint is returned when nothing is stored under the key.
var errNoCheckpoint = errors.New("no checkpoint stored")
