package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.ImageBuildException;
import dev.capstan.update.build.BuildRequest;
import dev.capstan.update.build.ImageBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds images by running allow-listed programs (by default {@code docker}, {@code make}, {@code
 * podman}, {@code buildah}; by name, or by a path whose file name is one of them) with argument
 * lists, never through a shell. Each built component has a recipe: an argument template whose
 * placeholders {@code {image}}, {@code {platform}}, {@code {source}} and {@code {component}} are
 * replaced whole-argument-wise or inside an argument. Arguments that would carry shell
 * metacharacters after substitution are refused anyway.
 *
 * <pre>{@code
 * ImageBuilder builder = ProcessImageBuilder.builder(CommandRunner.processes())
 *     .recipe("ui", "docker", "build", "--platform", "{platform}",
 *         "-f", "{source}/services/ui/Dockerfile", "-t", "{image}", "{source}")
 *     .build();
 * }</pre>
 */
public final class ProcessImageBuilder implements ImageBuilder {

  /** The programs allowed unless the host names others. */
  public static final Set<String> DEFAULT_EXECUTABLES =
      Set.of("docker", "make", "podman", "buildah");

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z]+)}");
  private static final Set<String> PLACEHOLDERS =
      Set.of("image", "platform", "source", "component");
  private static final Pattern METACHARACTERS = Pattern.compile("[;&|$`<>\\\\\\n\\r\\x00]");

  private final CommandRunner runner;
  private final Map<String, List<String>> recipes;
  private final List<String> push;

  private ProcessImageBuilder(
      CommandRunner runner, Map<String, List<String>> recipes, List<String> push) {
    this.runner = runner;
    this.recipes = Map.copyOf(recipes);
    this.push = List.copyOf(push);
  }

  /**
   * Starts a builder.
   *
   * @param runner runs the programs
   * @return the builder
   */
  public static Builder builder(CommandRunner runner) {
    return new Builder(runner);
  }

  @Override
  public boolean canBuild(String component) {
    return recipes.containsKey(component);
  }

  @Override
  public void build(BuildRequest request) {
    List<String> recipe = recipes.get(request.component());
    if (recipe == null) {
      throw new ImageBuildException("no build recipe for component " + request.component());
    }
    Map<String, String> values =
        Map.of(
            "image", request.image(),
            "platform", request.platform(),
            "source", request.source(),
            "component", request.component());
    run(expand(recipe, values), "build of " + request.image());
  }

  @Override
  public void push(String image) {
    run(expand(push, Map.of("image", image)), "push of " + image);
  }

  private void run(List<String> argv, String what) {
    CommandResult result = runner.run(argv);
    if (!result.succeeded()) {
      String output = result.output().strip();
      String tail =
          output.length() > 2000 ? "..." + output.substring(output.length() - 2000) : output;
      throw new ImageBuildException(
          what + " failed (" + argv.get(0) + " exit " + result.exitCode() + "): " + tail);
    }
  }

  static List<String> expand(List<String> template, Map<String, String> values) {
    List<String> out = new ArrayList<>(template.size());
    for (String arg : template) {
      Matcher m = PLACEHOLDER.matcher(arg);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String value = values.get(m.group(1));
        if (value == null) {
          throw new ImageBuildException(
              "placeholder {" + m.group(1) + "} has no value here: " + arg);
        }
        m.appendReplacement(sb, Matcher.quoteReplacement(value));
      }
      m.appendTail(sb);
      String expanded = sb.toString();
      if (METACHARACTERS.matcher(expanded).find()) {
        throw new ImageBuildException(
            "build argument must not contain shell metacharacters (;&|$`<>\\ or line breaks): "
                + Escapes.quote(expanded));
      }
      out.add(expanded);
    }
    return out;
  }

  /** Assembles a {@link ProcessImageBuilder}. */
  public static final class Builder {
    private final CommandRunner runner;
    private final Map<String, List<String>> recipes = new LinkedHashMap<>();
    private List<String> push = List.of("docker", "push", "{image}");
    private Set<String> executables = DEFAULT_EXECUTABLES;

    private Builder(CommandRunner runner) {
      this.runner = requireNonNull(runner, "runner");
    }

    /**
     * Replaces the allow-list of programs.
     *
     * @param names program names, looked up on the PATH
     * @return this builder
     */
    public Builder allow(String... names) {
      this.executables = Set.of(names);
      return this;
    }

    /**
     * Sets a component's build command.
     *
     * @param component the catalog component
     * @param argv the program and its argument templates
     * @return this builder
     */
    public Builder recipe(String component, String... argv) {
      recipes.put(requireNonNull(component, "component"), List.of(argv));
      return this;
    }

    /**
     * Sets the push command (default {@code docker push {image}}).
     *
     * @param argv the program and its argument templates; only {@code {image}} is available
     * @return this builder
     */
    public Builder push(String... argv) {
      this.push = List.of(argv);
      return this;
    }

    /**
     * Builds the image builder.
     *
     * @return the builder
     * @throws IllegalArgumentException when a command uses a program outside the allow-list or an
     *     unknown placeholder
     */
    public ProcessImageBuilder build() {
      recipes.forEach((component, argv) -> check("recipe for " + component, argv));
      check("push command", push);
      return new ProcessImageBuilder(runner, recipes, push);
    }

    /** The file name of a program given by name or path: {@code /usr/bin/podman} is podman. */
    private static String programName(String program) {
      int slash = program.lastIndexOf('/');
      return slash < 0 ? program : program.substring(slash + 1);
    }

    private void check(String what, List<String> argv) {
      if (argv.isEmpty()) {
        throw new IllegalArgumentException(what + " must name a program");
      }
      if (!executables.contains(programName(argv.get(0)))) {
        throw new IllegalArgumentException(
            what
                + " must run an allow-listed program "
                + new java.util.TreeSet<>(executables)
                + ": "
                + Escapes.quote(argv.get(0)));
      }
      for (String arg : argv) {
        Matcher m = PLACEHOLDER.matcher(arg);
        while (m.find()) {
          if (!PLACEHOLDERS.contains(m.group(1))) {
            throw new IllegalArgumentException(
                what + " uses an unknown placeholder {" + m.group(1) + "}: " + Escapes.quote(arg));
          }
        }
      }
    }
  }
}
