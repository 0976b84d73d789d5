// curio-client: a stand-in for Curio's cuzk client (curio lib/cuzk, lib/ffi/cuzk_funcs.go), built
// on stubs that protoc generates at test time from cuzk's apps/proto/cuzk/v1/proving.proto into
// ./cuzkpb. It speaks to a cuzk-daemon the way Curio does (Prove / SubmitProof + AwaitProof with
// proof_kind, registered_proof, vanilla proofs) and is also an operator's example of the contract.
//
//	curio-client contract                      the Curio fields keep the Rust contract's numbers and types
//	curio-client -addr A status                GetStatus: queues (Curio's back-pressure sum), devices, keys
//	curio-client -addr A post -dir D -out F    WindowPoSt / WinningPoSt from fil-oracle's post.json + vanilla-*.bin
//	curio-client -addr A porep -c1 F -miner M -out F   PoRep C2 from Curio's C1 wrapper JSON
//	curio-client -addr A snap -dir D -out F    a SnapDeals update from fil-oracle's update.json + vanilla-*.bin, and
//	                                           each malformed SnapDeals field refused while it is in flight
//	curio-client -addr A bad-inputs -sample D  each malformed request gets its gRPC code and a one-line message
//	curio-client -addr A cancel -dir D         submit a WindowPoSt, cancel it, await: CANCELLED (or done first)
//	curio-client -addr A submit -dir D         SubmitProof only (a PoSt, or an update where D has update.json); prints the job id
//	curio-client -addr A await -job J -out F   AwaitProof to the end; writes the proof
//	curio-client -addr A overtake -fix D -out O   two PoReps then a WinningPoSt: it overtakes the queued
//	                                           PoRep partitions (the daemon's timings); status names them
//
// Exit status: 0 success, 1 a check failed, 2 unusable input.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "cuzk.local/curioclient/cuzkpb"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: curio-client [-addr HOST:PORT|unix:PATH] contract|status|post|porep|snap|bad-inputs|cancel|submit|await|overtake [flags]")
	os.Exit(2)
}

func dial(addr string) (pb.ProvingEngineClient, func()) {
	target := addr
	if !strings.Contains(target, "://") && !strings.HasPrefix(target, "unix:") {
		target = "dns:///" + target
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		fail(2, "connect %s: %v", addr, err)
	}
	return pb.NewProvingEngineClient(conn), func() { conn.Close() }
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "curio-client: "+format+"\n", args...)
	os.Exit(code)
}

// readJSON decodes the JSON file at path into v and returns its bytes; an unreadable or malformed
// file exits 2, naming it.
func readJSON(path string, v any) []byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		fail(2, "%v", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		fail(2, "%s: %v", path, err)
	}
	return raw
}

// parseFlags parses a subcommand's flags; the named ones are required (exit 2 naming them).
func parseFlags(fs *flag.FlagSet, args []string, required ...string) {
	fs.Parse(args)
	var missing []string
	for _, name := range required {
		if fs.Lookup(name).Value.String() == "" {
			missing = append(missing, "-"+name)
		}
	}
	if len(missing) == 1 {
		fail(2, "%s: %s is required", fs.Name(), missing[0])
	} else if len(missing) > 1 {
		fail(2, "%s: %s are required", fs.Name(), strings.Join(missing, " and "))
	}
}

// The subcommands that talk to a daemon.
var commands = map[string]func(context.Context, pb.ProvingEngineClient, []string) int{
	"status": func(ctx context.Context, c pb.ProvingEngineClient, _ []string) int { return runStatus(ctx, c) },
	"post":   runPost, "porep": runPoRep, "snap": runSnap, "bad-inputs": runBadInputs, "cancel": runCancel,
	"submit": runSubmit, "await": runAwait, "overtake": runOvertake,
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9821", "the daemon's gRPC address")
	timeout := flag.Duration("timeout", 10*time.Minute, "deadline of each proving call")
	flag.Parse()
	if flag.NArg() < 1 {
		usage()
	}
	cmd, args := flag.Arg(0), flag.Args()[1:]
	if cmd == "contract" {
		os.Exit(checkContract())
	}
	run, ok := commands[cmd]
	if !ok {
		usage()
	}
	client, closeFn := dial(*addr)
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	os.Exit(run(ctx, client, args))
}
