// Hello is a java universe test job: it greets its first argument with
// the greeting property (java_vm_args -Dgreeting=...) through Greeter,
// which comes in greeter.jar (jar_files), and exits with its second
// argument. Compiled for Java 8: see README.
public class Hello {
    public static void main(String[] args) {
        System.out.println(Greeter.greet(System.getProperty("greeting", "hello"), args[0]));
        System.exit(args.length > 1 ? Integer.parseInt(args[1]) : 0);
    }
}
