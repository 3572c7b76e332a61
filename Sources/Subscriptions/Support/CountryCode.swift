/// Apple storefront codes (ISO 3166-1 alpha-3) to RevenueCat's `country_code` (alpha-2).
///
/// The table is ISO 3166-1 as shipped by Debian's iso-codes (249 entries), plus `XKS` → `XK`
/// (Kosovo, which Apple sells in under a user-assigned code). A code not in the table is kept as
/// Apple sent it, so nothing is lost; Apple documents `storefront` as alpha-3.
/// https://developer.apple.com/documentation/appstoreserverapi/storefront
public enum CountryCode {
    /// The alpha-2 code for an alpha-3 storefront, or the storefront itself when it is not mapped.
    public static func alpha2(fromStorefront storefront: String) -> String {
        table[storefront.uppercased()] ?? storefront
    }

    /// Five characters per entry: the alpha-3 code followed by its alpha-2 code.
    private static let table: [String: String] = {
        var result: [String: String] = [:]
        for entry in packed.split(whereSeparator: \.isWhitespace) where entry.count == 5 {
            result[String(entry.prefix(3))] = String(entry.suffix(2))
        }
        return result
    }()

    private static let packed = """
        ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT
        AZEAZ BDIBI BELBE BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO
        BRABR BRBBB BRNBN BTNBT BVTBV BWABW CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG
        COKCK COLCO COMKM CPVCV CRICR CUBCU CUWCW CXRCX CYMKY CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO
        DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET FINFI FJIFJ FLKFK FRAFR FROFO FSMFM GABGA GBRGB
        GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR GRDGD GRLGL GTMGT GUFGF GUMGU GUYGY
        HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR IRQIQ ISLIS ISRIL ITAIT
        JAMJM JEYJE JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB LBRLR LBYLY
        LCALC LIELI LKALK LSOLS LTULT LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH
        MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA
        NCLNC NERNE NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ OMNOM PAKPK PANPA PCNPN PERPE
        PHLPH PLWPW PNGPG POLPL PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU RWARW SAUSA
        SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR
        SVKSK SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO
        TTOTT TUNTN TURTR TUVTV TWNTW TZATZ UGAUG UKRUA UMIUM URYUY USAUS UZBUZ VATVA VCTVC VENVE VGBVG
        VIRVI VNMVN VUTVU WLFWF WSMWS XKSXK YEMYE ZAFZA ZMBZM ZWEZW
        """
}
