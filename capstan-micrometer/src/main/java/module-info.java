/**
 * Micrometer meters of release operations, platform updates and the Release controller, one
 * listener or observer each.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // micrometer.core
module dev.capstan.micrometer {
  requires transitive micrometer.core;
  // optional: a host brings what it measures (each one's types show only in its own class)
  requires static dev.capstan.release;
  requires static dev.capstan.update;
  requires static dev.capstan.controller;

  exports dev.capstan.micrometer;
}
