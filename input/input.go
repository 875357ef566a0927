// Package input implements the doris_binlog batch input: a Doris table's
// snapshot over Arrow Flight SQL, then its Row Binlog as ordered change events.
// Importing the package registers the input with the global Benthos
// environment.
package input

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/rpconnect-doris/rpconnect-doris/input/delivery"
)

const inputName = "doris_binlog"

func init() {
	service.MustRegisterBatchInput(inputName, Spec(), newInput)
}

func newInput(pc *service.ParsedConfig, mgr *service.Resources) (service.BatchInput, error) {
	conf, err := parseConfig(pc, mgr)
	if err != nil {
		return nil, err
	}
	pol, err := pc.FieldBatchPolicy(fieldBatching)
	if err != nil {
		return nil, err
	}
	r, err := newReader(conf, pol, mgr)
	if err != nil {
		return nil, err
	}
	warnPlaintextEndpoints(conf, mgr.Logger())
	replay, err := pc.FieldBool(service.AutoRetryNacksToggleFieldName)
	if err != nil {
		return nil, err
	}
	if !replay {
		return r, nil // the reader rewinds on nacks itself, and logs it
	}
	return delivery.WithNackLogging(service.AutoRetryNacksBatched(r), r.log), nil
}
