/** Micrometer meters of release operations and platform updates, one listener each. */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // micrometer.core
module dev.capstan.micrometer {
  requires transitive micrometer.core;
  // optional: a host brings the core it uses (each listener's types show only in its own class)
  requires static dev.capstan.release;
  requires static dev.capstan.update;

  exports dev.capstan.micrometer;
}
