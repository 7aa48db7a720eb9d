/** A host application of Capstan, as a named module. */
module com.example.shop {
  requires dev.capstan.release;
  requires dev.capstan.jdbc;

  exports com.example.shop;
}
