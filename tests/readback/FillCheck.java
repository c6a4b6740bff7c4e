// Independent read-back of filled forms: hwpxlib (HWPX) and hwplib (HWP 5.0), neolord0's Java
// readers, run by tests/test_fill_readback.py as a single-file program:
//   java -cp hwpxlib.jar:hwplib.jar FillCheck.java hwpx|hwp FILE [FIELD...]
// prints the document's text, then one line per FIELD: "FIELD\t<its click-here text>" (HWP only;
// hwpxlib has no field finder, its text is checked instead).
import java.util.ArrayList;

public class FillCheck {
    public static void main(String[] args) throws Exception {
        String format = args[0];
        String path = args[1];
        if (format.equals("hwpx")) {
            var file = kr.dogfoot.hwpxlib.reader.HWPXReader.fromFilepath(path);
            String text = kr.dogfoot.hwpxlib.tool.textextractor.TextExtractor.extract(
                file,
                kr.dogfoot.hwpxlib.tool.textextractor.TextExtractMethod.InsertControlTextBetweenParagraphText,
                true,
                new kr.dogfoot.hwpxlib.tool.textextractor.TextMarks());
            System.out.println(text);
            return;
        }
        var file = kr.dogfoot.hwplib.reader.HWPReader.fromFile(path);
        var method = kr.dogfoot.hwplib.tool.textextractor.TextExtractMethod.InsertControlTextBetweenParagraphText;
        System.out.println(kr.dogfoot.hwplib.tool.textextractor.TextExtractor.extract(file, method));
        for (int i = 2; i < args.length; i++) {
            ArrayList<String> texts =
                kr.dogfoot.hwplib.tool.objectfinder.FieldFinder.getAllClickHereText(file, args[i], method);
            for (String t : texts) {
                System.out.println("FIELD\t" + args[i] + "\t" + t.replace("\n", "\\n").replace("\r", "\\r"));
            }
        }
    }
}
