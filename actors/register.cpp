// Registration of every message type under one name, and the engine's error category.
#include "actors/actors.hpp"
#include "caf/actor_system_config.hpp"
#include "caf/message.hpp"

namespace cuzk::msg {

void register_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<keepalive>("cuzk.keepalive");
  cfg.add_message_type<key_handle>("cuzk.key_handle");
  cfg.add_message_type<resident_handle>("cuzk.resident_handle");
  cfg.add_message_type<residency_status>("cuzk.residency_status");
  cfg.add_message_type<witness_handle>("cuzk.witness_handle");
  cfg.add_message_type<witness_source>("cuzk.witness_source");
  cfg.add_message_type<synthesis_handle>("cuzk.synthesis_handle");
  cfg.add_message_type<task_ref>("cuzk.task_ref");
  cfg.add_message_type<job_spec>("cuzk.job_spec");
  cfg.add_message_type<job_ticket>("cuzk.job_ticket");
  cfg.add_message_type<job_timings>("cuzk.job_timings");
  cfg.add_message_type<partition_output>("cuzk.partition_output");
  cfg.add_message_type<partition_timing>("cuzk.partition_timing");
  cfg.add_message_type<job_outcome>("cuzk.job_outcome");
  cfg.add_message_type<reservation>("cuzk.reservation");
  cfg.add_message_type<budget_status>("cuzk.budget_status");
  cfg.add_message_type<synth_request>("cuzk.synth_request");
  cfg.add_message_type<synth_result>("cuzk.synth_result");
  cfg.add_message_type<staged_handle>("cuzk.staged_handle");
  cfg.add_message_type<stage_request>("cuzk.stage_request");
  cfg.add_message_type<stage_result>("cuzk.stage_result");
  cfg.add_message_type<prove_request>("cuzk.prove_request");
  cfg.add_message_type<device_result>("cuzk.device_result");
  cfg.add_message_type<b2_plan_status>("cuzk.b2_plan_status");
  cfg.add_message_type<device_status>("cuzk.device_status");
  cfg.add_message_type<assemble_request>("cuzk.assemble_request");
  cfg.add_message_type<assembly_ack>("cuzk.assembly_ack");
  cfg.add_message_type<key_status>("cuzk.key_status");
  cfg.add_message_type<key_store_status>("cuzk.key_store_status");
  cfg.add_message_type<device_usage>("cuzk.device_usage");
  cfg.add_message_type<job_wait>("cuzk.job_wait");
  cfg.add_message_type<scheduler_status>("cuzk.scheduler_status");
  cfg.add_message_type<job_report>("cuzk.job_report");
  cfg.add_message_type<intake_status>("cuzk.intake_status");
  cfg.add_message_type<fault_record>("cuzk.fault_record");
  cfg.add_message_type<supervisor_status>("cuzk.supervisor_status");
  cfg.add_message_type<reserve_request>("cuzk.reserve_request");
  cfg.add_message_type<worker_replaced>("cuzk.worker_replaced");
  cfg.add_message_type<roster>("cuzk.roster");
  cfg.add_message_type<verifier_handle>("cuzk.verifier_handle");
  cfg.add_message_type<key_summary>("cuzk.key_summary");
  cfg.add_message_type<node_load>("cuzk.node_load");
  cfg.add_message_type<key_offer>("cuzk.key_offer");
  cfg.add_message_type<join_hello>("cuzk.join_hello");
  cfg.add_message_type<join_challenge>("cuzk.join_challenge");
  cfg.add_message_type<join_request>("cuzk.join_request");
  cfg.add_message_type<join_reply>("cuzk.join_reply");
  cfg.add_message_type<node_task>("cuzk.node_task");
  cfg.add_message_type<node_result>("cuzk.node_result");
  cfg.add_message_type<node_joined>("cuzk.node_joined");
  cfg.add_message_type<node_info>("cuzk.node_info");
  cfg.add_message_type<registrar_status>("cuzk.registrar_status");
  cfg.add_message_type<agent_status>("cuzk.agent_status");
  cfg.add_error_category(caf::atom("cuzk"), [](std::uint8_t code, caf::atom_value, const caf::message& ctx) {
    std::string out = to_string(static_cast<errc>(code));
    if (ctx.match_elements<std::string>()) out += ": " + ctx.get_as<std::string>(0);
    return out;
  });
}

}  // namespace cuzk::msg
