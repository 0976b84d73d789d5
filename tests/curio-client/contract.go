package main

// The Rust cuzk contract that Curio is built against (shared/notes/filecoin.md §1; curio
// extern/cuzk/cuzk-proto), written down here as a table: every field Curio sends or reads must
// keep its number and wire kind in cuzk's proving.proto, or Curio's bytes would be misread. The
// check reads the descriptors compiled into the generated stubs, i.e. exactly what the daemon
// was built from.

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

type wantField struct {
	name   string
	number protoreflect.FieldNumber
	kind   protoreflect.Kind
	list   bool
}

var (
	str   = protoreflect.StringKind
	byt   = protoreflect.BytesKind
	u64   = protoreflect.Uint64Kind
	u32   = protoreflect.Uint32Kind
	enm   = protoreflect.EnumKind
	msg   = protoreflect.MessageKind
	bool_ = protoreflect.BoolKind
)

var curioContract = map[string][]wantField{
	"SubmitProofRequest": {
		{"request_id", 1, str, false}, {"proof_kind", 2, enm, false}, {"sector_size", 3, u64, false},
		{"registered_proof", 4, u64, false}, {"priority", 5, enm, false}, {"vanilla_proof", 10, byt, false},
		{"vanilla_proofs", 11, byt, true}, {"sector_number", 20, u64, false}, {"miner_id", 21, u64, false},
		{"randomness", 22, byt, false}, {"partition_index", 23, u32, false}, {"comm_r_old", 30, byt, false},
		{"comm_r_new", 31, byt, false}, {"comm_d_new", 32, byt, false},
	},
	"SubmitProofResponse": {{"job_id", 1, str, false}, {"queue_position", 2, u32, false}, {"assigned_gpu", 3, str, false}},
	"AwaitProofRequest":   {{"job_id", 1, str, false}, {"timeout_ms", 2, u64, false}},
	"AwaitProofResponse": {
		{"job_id", 1, str, false}, {"status", 2, enm, false}, {"proof", 3, byt, false}, {"error_message", 4, str, false},
		{"queue_wait_ms", 10, u64, false}, {"srs_load_ms", 11, u64, false}, {"synthesis_ms", 12, u64, false},
		{"gpu_compute_ms", 13, u64, false}, {"total_ms", 14, u64, false},
	},
	"ProveRequest":        {{"submit", 1, msg, false}},
	"ProveResponse":       {{"result", 1, msg, false}},
	"CancelProofRequest":  {{"job_id", 1, str, false}},
	"CancelProofResponse": {{"was_running", 1, bool_, false}},
	"GetStatusResponse": {
		{"gpus", 1, msg, true}, {"loaded_srs", 2, msg, true}, {"queues", 3, msg, true},
		{"total_proofs_completed", 4, u64, false}, {"total_proofs_failed", 5, u64, false},
		{"uptime_seconds", 6, u64, false}, {"pinned_memory_bytes", 7, u64, false},
		{"pinned_memory_limit_bytes", 8, u64, false},
	},
	"GPUStatus": {
		{"ordinal", 1, u32, false}, {"name", 2, str, false}, {"vram_total_bytes", 3, u64, false},
		{"vram_free_bytes", 4, u64, false}, {"current_job_id", 5, str, false}, {"current_proof_kind", 6, str, false},
	},
	"SRSStatus":          {{"circuit_id", 1, str, false}, {"tier", 2, enm, false}, {"size_bytes", 3, u64, false}, {"ref_count", 4, u32, false}},
	"QueueStatus":        {{"proof_kind", 1, str, false}, {"pending", 2, u32, false}, {"in_progress", 3, u32, false}},
	"PreloadSrsRequest":  {{"circuit_id", 1, str, false}},
	"PreloadSrsResponse": {{"already_loaded", 1, bool_, false}, {"load_time_ms", 2, u64, false}},
	"EvictSrsRequest":    {{"circuit_id", 1, str, false}},
	"EvictSrsResponse":   {{"was_loaded", 1, bool_, false}, {"freed_bytes", 2, u64, false}},
	"GetMetricsResponse": {{"prometheus_text", 1, str, false}},
}

var curioEnums = map[string]map[string]protoreflect.EnumNumber{
	"ProofKind":                 {"PROOF_KIND_UNSPECIFIED": 0, "POREP_SEAL_COMMIT": 1, "SNAP_DEALS_UPDATE": 2, "WINDOW_POST_PARTITION": 3, "WINNING_POST": 4},
	"Priority":                  {"PRIORITY_UNSPECIFIED": 0, "LOW": 1, "NORMAL": 2, "HIGH": 3, "CRITICAL": 4},
	"AwaitProofResponse.Status": {"UNKNOWN": 0, "COMPLETED": 1, "FAILED": 2, "CANCELLED": 3, "TIMEOUT": 4},
	"SRSStatus.Tier":            {"HOT": 0, "WARM": 1, "COLD": 2},
}

var curioMethods = map[string][2]string{
	"SubmitProof": {"SubmitProofRequest", "SubmitProofResponse"}, "AwaitProof": {"AwaitProofRequest", "AwaitProofResponse"},
	"Prove": {"ProveRequest", "ProveResponse"}, "CancelProof": {"CancelProofRequest", "CancelProofResponse"},
	"GetStatus": {"GetStatusRequest", "GetStatusResponse"}, "GetMetrics": {"GetMetricsRequest", "GetMetricsResponse"},
	"PreloadSRS": {"PreloadSrsRequest", "PreloadSrsResponse"}, "EvictSRS": {"EvictSrsRequest", "EvictSrsResponse"},
}

func checkContract() int {
	bad := 0
	problem := func(format string, args ...any) {
		fmt.Printf("not ok: "+format+"\n", args...)
		bad++
	}
	find := func(name string) protoreflect.Descriptor {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("cuzk.v1." + name))
		if err != nil {
			return nil
		}
		return d
	}
	fields := 0
	for m, want := range curioContract {
		md, ok := find(m).(protoreflect.MessageDescriptor)
		if !ok {
			problem("message cuzk.v1.%s is missing", m)
			continue
		}
		for _, w := range want {
			f := md.Fields().ByName(protoreflect.Name(w.name))
			if f == nil {
				f = md.Fields().ByNumber(w.number)
				if f == nil {
					problem("%s.%s (%d) is missing", m, w.name, w.number)
				} else {
					problem("%s: number %d is %s, Curio's %s", m, w.number, f.Name(), w.name)
				}
				continue
			}
			if f.Number() != w.number || f.Kind() != w.kind || f.IsList() != w.list {
				problem("%s.%s is #%d %v (list %v), Curio's is #%d %v (list %v)", m, w.name, f.Number(), f.Kind(),
					f.IsList(), w.number, w.kind, w.list)
			}
			fields++
		}
		// cuzk's own fields must stay clear of the numbers Curio uses (they are numbered from 40).
		for i := 0; i < md.Fields().Len(); i++ {
			f := md.Fields().Get(i)
			known := false
			for _, w := range want {
				known = known || w.name == string(f.Name())
			}
			if !known && f.Number() < 40 {
				problem("%s.%s is #%d, a number below 40 that Curio's contract does not define", m, f.Name(), f.Number())
			}
		}
	}
	for e, values := range curioEnums {
		ed, ok := find(e).(protoreflect.EnumDescriptor)
		if !ok {
			problem("enum cuzk.v1.%s is missing", e)
			continue
		}
		for name, n := range values {
			v := ed.Values().ByName(protoreflect.Name(name))
			if v == nil || v.Number() != n {
				problem("enum %s: %s must be %d", e, name, n)
			}
		}
	}
	sd, ok := find("ProvingEngine").(protoreflect.ServiceDescriptor)
	if !ok {
		problem("service cuzk.v1.ProvingEngine is missing")
	} else {
		for name, io := range curioMethods {
			md := sd.Methods().ByName(protoreflect.Name(name))
			if md == nil {
				problem("rpc %s is missing", name)
				continue
			}
			if string(md.Input().Name()) != io[0] || string(md.Output().Name()) != io[1] {
				problem("rpc %s is (%s) returns (%s), Curio's is (%s) returns (%s)", name, md.Input().Name(),
					md.Output().Name(), io[0], io[1])
			}
		}
	}
	if bad > 0 {
		return 1
	}
	fmt.Printf("ok: %d Curio fields, %d enums, %d methods keep the Rust contract's numbers and types\n", fields,
		len(curioEnums), len(curioMethods))
	return 0
}
