// Greeter is packed alone into greeter.jar for the java universe test.
public class Greeter {
    public static String greet(String greeting, String who) {
        return greeting + " " + who + " from a jar";
    }
}
