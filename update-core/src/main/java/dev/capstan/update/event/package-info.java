/**
 * What the platform update reports as it goes: {@link dev.capstan.update.event.UpdateEvent}
 * (sealed; each event also renders as one line) and the {@link
 * dev.capstan.update.event.UpdateListener} a host registers for them; {@link
 * dev.capstan.update.event.EventLog} logs each as one escaped line.
 */
@NullMarked
package dev.capstan.update.event;

import org.jspecify.annotations.NullMarked;
