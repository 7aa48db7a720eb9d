package dev.capstan.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application that deploys its shop with Capstan: the starter gives it a {@code
 * ReleaseController} bean on its Kubernetes connection ({@code capstan.kubernetes.kubeconfig}, or
 * the pod's service account), with metrics and the {@code capstan} health indicator.
 */
@SpringBootApplication
public class ShopApplication {
  /** Runs the application. */
  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
