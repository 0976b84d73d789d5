// Supervisor: builds every actor of one engine, monitors all of them, and when one dies records
// the fault, spawns its replacement and tells the scheduler (and, for the host budget, the key
// store), which re-queues the dead worker's partition with attempt + 1. Remote synthesizers
// (other nodes, over CAF's middleman) are monitored too; a lost node cannot be respawned from
// here, so its slot is retired and its partitions re-dispatched to the others.
// On shutdown it stops every worker it spawned (nothing is left running: ~actor_system() would
// otherwise wait for orphans), then itself.
#include <map>
#include <set>

#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"

namespace cuzk::actors {

namespace {

struct supervisor_state {
  supervisor_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  engine_settings settings;
  roster r;
  std::map<caf::actor_addr, std::pair<role, std::uint32_t>> watched;
  std::vector<bool> remote;  // per synthesizer slot: a remote node's actor
  std::vector<fault_record> faults;
  std::set<caf::actor_addr> doomed;  // killed through the test hook, down message not seen yet
  std::uint64_t respawns = 0, generation = 0, t0 = 0;
  bool stopping = false;
  // Per budget slot (host: slot 0 of host_budget): the grants, handed to every respawn there.
  std::map<std::pair<role, std::uint32_t>, std::shared_ptr<budget_ledger>> ledgers;
};

using sup_ptr = caf::stateful_actor<supervisor_state>*;

void watch(sup_ptr self, const caf::actor& a, role who, std::uint32_t slot) {
  if (!a) return;
  self->monitor(a);
  self->state.watched[a.address()] = {who, slot};
}

caf::actor spawn_role(sup_ptr self, role who, std::uint32_t slot) {
  auto& st = self->state;
  auto& sys = self->system();
  const auto& s = st.settings;
  auto gen = ++st.generation;
  switch (who) {
    case role::host_budget:
    case role::vram_budget: {
      auto& ledger = st.ledgers[{who, slot}];
      if (!ledger) ledger = make_budget_ledger();
      return who == role::host_budget
                 ? caf::actor_cast<caf::actor>(spawn_budget(sys, "host", s.host_budget_bytes, ledger))
                 : caf::actor_cast<caf::actor>(
                       spawn_budget(sys, "vram" + std::to_string(slot), s.device_budget_bytes, ledger));
    }
    case role::key_store:
    {
      std::vector<device_actor> devices;
      std::vector<budget_actor> vram;
      for (auto& d : st.r.devices) devices.push_back(caf::actor_cast<device_actor>(d));
      for (auto& v : st.r.vram_budgets) vram.push_back(caf::actor_cast<budget_actor>(v));
      return caf::actor_cast<caf::actor>(spawn_key_store(sys, caf::actor_cast<budget_actor>(st.r.host_budget),
                                                         s.key_cache_bytes,
                                                         key_load_options{s.param_digests, s.evaluator_dir, s.record_threads,
                                                                          s.kept_partitions, s.on_event, s.device_synthesis,
                                                                          s.backend.b2 != zk::groth16::b2_mode::device, s.backend.staged_partitions}, std::move(devices),
                                                         std::move(vram)));
    }
    case role::synthesizer:
      return caf::actor_cast<caf::actor>(spawn_synthesizer(sys, slot, s.synthesizer_threads, s.faults, gen));
    case role::device:
      return caf::actor_cast<caf::actor>(spawn_device(sys, slot, s.devices[slot], s.backend, s.faults, gen));
    case role::stager:
      return caf::actor_cast<caf::actor>(spawn_stager(sys, slot, s.devices[slot]));
    case role::assembler:
      return caf::actor_cast<caf::actor>(spawn_assembler(sys));
    default:
      return {};
  }
}

caf::actor* slot_of(sup_ptr self, role who, std::uint32_t slot) {
  auto& r = self->state.r;
  switch (who) {
    case role::host_budget: return &r.host_budget;
    case role::key_store: return &r.key_store;
    case role::assembler: return &r.assembler;
    case role::scheduler: return &r.scheduler;
    case role::intake: return &r.intake;
    case role::vram_budget: return slot < r.vram_budgets.size() ? &r.vram_budgets[slot] : nullptr;
    case role::device: return slot < r.devices.size() ? &r.devices[slot] : nullptr;
    case role::stager: return slot < r.stagers.size() ? &r.stagers[slot] : nullptr;
    case role::synthesizer:
    case role::remote_synthesizer: return slot < r.synthesizers.size() ? &r.synthesizers[slot] : nullptr;
  }
  return nullptr;
}

void on_down(sup_ptr self, caf::down_msg& dm) {
  auto& st = self->state;
  auto it = st.watched.find(dm.source);
  if (it == st.watched.end()) return;
  auto [who, slot] = it->second;
  st.watched.erase(it);
  st.doomed.erase(dm.source);
  if (st.stopping) return;
  st.faults.push_back(fault_record{who, slot, caf::to_string(dm.reason), now_us() - st.t0});
  auto* current = slot_of(self, who, slot);
  if (!current || current->address() != dm.source) return;  // already replaced
  worker_replaced note{who, slot, dm.source, {}, caf::to_string(dm.reason)};
  if (who == role::scheduler || who == role::intake || who == role::remote_synthesizer) {
    // Their state cannot be rebuilt here; a lost remote synthesizer's slot is retired.
    *current = {};
  } else {
    note.fresh = spawn_role(self, who, slot);
    *current = note.fresh;
    watch(self, note.fresh, who, slot);
    ++st.respawns;
  }
  if (st.r.scheduler) self->send(caf::actor_cast<scheduler_actor>(st.r.scheduler), note);
  // The key store holds the host budget's grants and, per device, the resident tier (the device
  // makes the points, that device's VRAM budget grants them).
  if ((who == role::host_budget || who == role::device || who == role::vram_budget) && st.r.key_store)
    self->send(caf::actor_cast<key_store_actor>(st.r.key_store), note);
}

caf::behavior supervisor(sup_ptr self, engine_settings settings) {
  auto& st = self->state;
  st.settings = std::move(settings);
  st.t0 = now_us();
  auto& r = st.r;
  const auto& s = st.settings;
  r.host_budget = spawn_role(self, role::host_budget, 0);
  watch(self, r.host_budget, role::host_budget, 0);
  for (std::uint32_t d = 0; d < s.devices.size(); ++d) {
    r.vram_budgets.push_back(spawn_role(self, role::vram_budget, d));
    watch(self, r.vram_budgets.back(), role::vram_budget, d);
    r.devices.push_back(spawn_role(self, role::device, d));
    watch(self, r.devices.back(), role::device, d);
    r.stagers.push_back(spawn_role(self, role::stager, d));
    watch(self, r.stagers.back(), role::stager, d);
  }
  r.key_store = spawn_role(self, role::key_store, 0);
  watch(self, r.key_store, role::key_store, 0);
  for (std::uint32_t i = 0; i < s.synthesizers; ++i) {
    r.synthesizers.push_back(spawn_role(self, role::synthesizer, i));
    st.remote.push_back(false);
    watch(self, r.synthesizers.back(), role::synthesizer, i);
  }
  for (auto& ep : s.remote_synthesizers) {
    auto slot = static_cast<std::uint32_t>(r.synthesizers.size());
    auto remote = self->system().middleman().remote_actor<synthesizer_actor>(ep.host, ep.port);
    caf::actor a = remote ? caf::actor_cast<caf::actor>(*remote) : caf::actor{};
    if (!remote)
      st.faults.push_back(fault_record{role::remote_synthesizer, slot,
                                       "connect " + ep.host + ":" + std::to_string(ep.port) + ": " +
                                           caf::to_string(remote.error()),
                                       0});
    r.synthesizers.push_back(a);
    st.remote.push_back(true);
    watch(self, a, role::remote_synthesizer, slot);
  }
  r.assembler = spawn_role(self, role::assembler, 0);
  watch(self, r.assembler, role::assembler, 0);
  r.scheduler = caf::actor_cast<caf::actor>(spawn_scheduler(self->system(), scheduler_setup{st.settings, r}));
  watch(self, r.scheduler, role::scheduler, 0);
  r.intake = caf::actor_cast<caf::actor>(
      spawn_intake(self->system(), caf::actor_cast<scheduler_actor>(r.scheduler), st.settings));
  watch(self, r.intake, role::intake, 0);
  self->set_down_handler([self](caf::down_msg& dm) { on_down(self, dm); });
  return {
      [self](roster_atom) { return self->state.r; },
      [self](status_atom) {
        supervisor_status s;
        s.faults = self->state.faults;
        s.respawns = self->state.respawns;
        return s;
      },
      [self](kill_atom, role who, std::uint32_t slot) {
        auto* a = slot_of(self, who, slot);
        if (!a || !*a || !self->state.doomed.insert(a->address()).second) return false;  // one kill per life
        caf::anon_send_exit(*a, caf::exit_reason::kill);
        return true;
      },
      [self](fail_alloc_atom, std::uint32_t device, std::uint32_t n) -> caf::result<bool> {
        auto* a = slot_of(self, role::device, device);
        if (!a || !*a) return false;
        // Answered once the device has the count, so that work submitted afterwards sees it.
        auto rp = self->make_response_promise<bool>();
        self->request(caf::actor_cast<device_actor>(*a), caf::infinite, fail_alloc_atom::value, n)
            .then([rp](std::uint32_t) mutable { rp.deliver(true); },
                  [rp](caf::error&) mutable { rp.deliver(false); });
        return rp;
      },
      [self](shutdown_atom) {
        auto& st = self->state;
        st.stopping = true;
        auto stop = [&](caf::actor& a) {
          if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
        };
        stop(st.r.intake);
        stop(st.r.scheduler);
        for (std::size_t i = 0; i < st.r.synthesizers.size(); ++i)
          if (!st.remote[i]) stop(st.r.synthesizers[i]);
        for (auto& d : st.r.stagers) stop(d);
        for (auto& d : st.r.devices) stop(d);
        stop(st.r.assembler);
        stop(st.r.key_store);
        for (auto& v : st.r.vram_budgets) stop(v);
        stop(st.r.host_budget);
        self->quit();
        return true;
      },
  };
}

}  // namespace

caf::actor spawn_supervisor(caf::actor_system& sys, engine_settings settings) {
  return sys.spawn(supervisor, std::move(settings));
}

}  // namespace cuzk::actors
