/** OpenTelemetry spans of release operations and platform updates, one listener each. */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // io.opentelemetry.api
module dev.capstan.opentelemetry {
  requires transitive io.opentelemetry.api;
  requires io.opentelemetry.context;
  // optional: a host brings the core it uses (each listener's types show only in its own class)
  requires static dev.capstan.release;
  requires static dev.capstan.update;

  exports dev.capstan.opentelemetry;
}
