/** Tests of the JDBC store on H2 and on a real PostgreSQL server. */
@NullMarked
package dev.capstan.jdbc;

import org.jspecify.annotations.NullMarked;
