// Every actor of the engine, for whoever builds the whole engine (engine/, the supervisor, tests).
// Each actor's typed interface, its messages and its spawn function sit in its own header beside
// its translation unit; the vocabulary they share is messages/common.hpp. The headers include
// each other only downwards:
//   settings, budget, device, stager, synthesizer, assembler, supervisor
//   key_store (budget, device, supervisor) -> scheduler (supervisor) -> intake -> registrar -> node_agent
#pragma once

#include "actors/assembler.hpp"
#include "actors/budget.hpp"
#include "actors/device.hpp"
#include "actors/intake.hpp"
#include "actors/key_store.hpp"
#include "actors/node_agent.hpp"
#include "actors/registrar.hpp"
#include "actors/scheduler.hpp"
#include "actors/settings.hpp"
#include "actors/stager.hpp"
#include "actors/supervisor.hpp"
#include "actors/synthesizer.hpp"

namespace caf {
class actor_system_config;
}

namespace cuzk::msg {

// The one registration function (actors/register.cpp): every actor system of the engine (and every
// remote node) calls it, so both ends of a connection register the same types under the same names.
void register_messages(caf::actor_system_config& cfg);

}  // namespace cuzk::msg
