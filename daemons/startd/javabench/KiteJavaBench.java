// KiteJavaBench describes the JVM that runs it, for the startd's machine
// ad: its vendor, version and specification version, and its speed at
// floating-point multiply-adds in millions per second (JavaMFlops).
// Compiled for Java 8 so that any later JVM runs it: see bench.go.
public class KiteJavaBench {
    public static void main(String[] args) {
        System.out.println("JavaVendor=" + System.getProperty("java.vendor"));
        System.out.println("JavaVersion=" + System.getProperty("java.version"));
        System.out.println("JavaSpecificationVersion=" + System.getProperty("java.specification.version"));
        double x = 1.0;
        final double y = 1.0000001;
        long flops = 0;
        long start = System.nanoTime();
        long end = start + 200000000L;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100000; i++) {
                x = x * y + 1e-9;
            }
            flops += 200000;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.println("JavaMFlops=" + (flops / seconds / 1e6));
        // x is printed so that the loop cannot be optimised away.
        System.out.println("Check=" + x);
    }
}
