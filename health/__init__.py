"""Health Manager: vitals and monitor, SOS, messaging, directory, prescriptions, reports."""
