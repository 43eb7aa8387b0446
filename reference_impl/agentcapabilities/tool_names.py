"""The wire names of the tools the Assistant and Patrol may call."""

from __future__ import annotations

# Registry tools.
PULSE_QUERY = "pulse_query"
PULSE_DISCOVERY = "pulse_discovery"
PULSE_METRICS = "pulse_metrics"
PULSE_STORAGE = "pulse_storage"
PULSE_DOCKER = "pulse_docker"
PULSE_KUBERNETES = "pulse_kubernetes"
PULSE_ALERTS = "pulse_alerts"
PULSE_READ = "pulse_read"
PULSE_CONTROL = "pulse_control"
PULSE_FILE_EDIT = "pulse_file_edit"
PULSE_KNOWLEDGE = "pulse_knowledge"
PULSE_PMG = "pulse_pmg"
PULSE_SUMMARIZE = "pulse_summarize"

# Patrol tools, also in the registry.
PATROL_GET_FINDINGS = "patrol_get_findings"
PATROL_ASSESS_FINDING = "patrol_assess_finding"
PATROL_REPORT_FINDING = "patrol_report_finding"
PATROL_RESOLVE_FINDING = "patrol_resolve_finding"
# Patrol detection's monitor builder: the model proposes, the core installs.
PATROL_PROPOSE_OBSERVER = "patrol_propose_observer"
# An investigation's typed action proposal: captured, never executed here.
PATROL_PROPOSE_ACTION = "patrol_propose_action"
# An investigation's lookup of the typed actions a resource advertises.
PATROL_ACTION_CAPABILITIES = "patrol_action_capabilities"

# Chat-native: asks the user.
PULSE_QUESTION = "pulse_question"

# Adapter names outside the registry.
PULSE_RUN_COMMAND = "pulse_run_command"
PULSE_CONTROL_GUEST = "pulse_control_guest"
PULSE_CONTROL_DOCKER = "pulse_control_docker"
PULSE_SEARCH_RESOURCES = "pulse_search_resources"
PULSE_GET_RESOURCE = "pulse_get_resource"
PULSE_GET_TOPOLOGY = "pulse_get_topology"
PULSE_LIST_INFRASTRUCTURE = "pulse_list_infrastructure"
PULSE_GET_CONNECTION_HEALTH = "pulse_get_connection_health"
PULSE_GET_DOCKER_LOGS = "pulse_get_docker_logs"
PULSE_GET_PERFORMANCE_METRICS = "pulse_get_performance_metrics"
PULSE_GET_TEMPERATURES = "pulse_get_temperatures"
PULSE_GET_BASELINES = "pulse_get_baselines"
PULSE_GET_PATTERNS = "pulse_get_patterns"

# Legacy assistant aliases.
RUN_COMMAND = "run_command"
FETCH_URL = "fetch_url"
SET_RESOURCE_URL = "set_resource_url"
