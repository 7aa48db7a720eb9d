@NullMarked
package dev.capstan.release.chart;

import org.jspecify.annotations.NullMarked;
