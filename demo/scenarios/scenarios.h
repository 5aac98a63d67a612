#pragma once

#include "demo/scenariorunner.h"

#include <memory>

namespace cs::demo {

class DemoStack;
class Scenario;

// The ten training scenarios, one file each in this folder (docs/DEMO.md).
QList<ScenarioInfo> scenarioCatalogue();
// The scenario with that id, playing against stack (which must be running); null if unknown.
std::unique_ptr<Scenario> makeScenario(int id, DemoStack *stack);

std::unique_ptr<Scenario> makeRetryTwiceScenario(DemoStack *stack);       // 1
std::unique_ptr<Scenario> makeChangedAmountScenario(DemoStack *stack);    // 2
std::unique_ptr<Scenario> makeKeyReusedScenario(DemoStack *stack);        // 3
std::unique_ptr<Scenario> makeTwoWorkersScenario(DemoStack *stack);       // 4
std::unique_ptr<Scenario> makeCrashMidFlightScenario(DemoStack *stack);   // 5
std::unique_ptr<Scenario> makeOutageScenario(DemoStack *stack);           // 6
std::unique_ptr<Scenario> makeKeyWindowScenario(DemoStack *stack);        // 7
std::unique_ptr<Scenario> makeTwoAgentsScenario(DemoStack *stack);        // 8
std::unique_ptr<Scenario> makeMcpRetryScenario(DemoStack *stack);         // 9
std::unique_ptr<Scenario> makeRefundFailedScenario(DemoStack *stack);     // 10

} // namespace cs::demo
