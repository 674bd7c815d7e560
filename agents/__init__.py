"""Action Manager (planner, caller, tools, runtime, model backends) and Memory."""
