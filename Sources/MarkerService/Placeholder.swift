// Placeholder until the service logic lands.
