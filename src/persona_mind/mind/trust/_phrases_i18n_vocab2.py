"""Word lists of the non-English override families for Russian, Ukrainian, Turkish,
Indonesian, Vietnamese, Chinese, Japanese, Korean, Arabic, Hindi, Greek, Bengali and Thai
(the roles are those of
:class:`~persona_mind.mind.trust._phrases_i18n_vocab.Lexicon`).

Scripts written without spaces (Chinese, Japanese, Thai) and scripts whose vowel signs are not
word characters to the regex engine (Devanagari, Bengali) are ``spaced=False``: their roles are
matched as substrings.  Korean is matched on its decomposed jamo (NFKD, as the text is),
so no list here uses a character class of Hangul syllables.  Greek final sigma is
written ``σ``, as case folding makes it.
"""

from __future__ import annotations

from persona_mind.mind.trust._phrases_i18n_vocab import Lexicon

__all__ = ("LEXICONS2",)

# fmt: off
LEXICONS2: tuple[Lexicon, ...] = (
    Lexicon(
        "ru", spaced=True,
        ignore=r"игнорируй\w*|проигнорируй\w*|забудь\w*|не обращай\w* внимания|не слушай\w*|"
               r"не выполняй\w*|не следуй\w*|перестань\w* следовать|отбрось\w*|пропусти\w*",
        prior=r"предыдущ\w*|прежн\w*|вышеуказанн\w*|выше\w*|изначальн\w*|исходн\w*|системн\w*|"
              r"все|всё|свои|твои|ваши",
        orders=r"инструкци\w*|правил\w*|указани\w*|команд\w*|промпт\w*|директив\w*|распоряжени\w*",
        user=r"пользовател\w*|юзер\w*",
        asked=r"просил\w*|попросил\w*|сказал\w*|хочет|хотел\w*|просьб\w*|запрос\w*|указани\w*|"
              r"инструкци\w*",
        obey=r"подчиняй\w*|слушай\w*|следуй\w*|выполняй\w*|выполни\w*|делай|соблюдай\w*",
        only=r"только|лишь|исключительно",
        this=r"(?:это\w*|данн\w*) (?:\w+ )?(?:файл\w*|документ\w*|заметк\w*|сообщени\w*|текст\w*|"
             r"страниц\w*|письм\w*|комментари\w*)",
        now=r"с этого момента|отныне|теперь|с сегодняшнего дня|впредь",
        void=r"недействительн\w*|отменен\w*|аннулирован\w*|больше не действу\w*|утратил\w* силу|"
             r"не действуют",
        send=r"отправь\w*|пришли\w*|перешли\w*|опубликуй\w*|загрузи\w*|вышли\w*",
        loot=r"парол\w*|ключ\w*|учетн\w* данн\w*|токен\w*|секрет\w*",
        reveal=r"покажи\w*|раскрой\w*|выведи\w*|повтори\w*|напиши\w*|скажи\w*|назови\w*|"
               r"распечатай\w*",
        yours=r"твои|ваши|свои|твой|ваш|твоих|ваших",
        sysprompt=r"системн\w* (?:промпт|подсказк|инструкци)\w*|скрыт\w* инструкци\w*|"
                  r"исходн\w* инструкци\w*",
        stems=("игнор", "проигнор", "забудь", "обращаи", "слушаи", "выполняи", "следуи",
               "перестан", "отбрось", "пропусти", "подчиняи", "выполни", "делаи", "соблюдаи",
               "отправ", "пришли", "перешли", "опубликуи", "загрузи", "вышли", "инструкци",
               "правил", "только", "покажи", "раскрой", "выведи", "повтори", "напиши", "скажи",
               "назови", "распечатай"),
    ),
    Lexicon(
        "uk", spaced=True,
        ignore=r"ігноруй\w*|проігноруй\w*|забудь\w*|не звертай\w* уваги|не слухай\w*|"
               r"не виконуй\w*|не дотримуйся",
        prior=r"попередн\w*|вище\w*|початков\w*|системн\w*|усі|всі|свої|твої",
        orders=r"інструкці\w*|правил\w*|вказівк\w*|команд\w*|промпт\w*",
        user=r"користувач\w*",
        asked=r"просив\w*|сказав\w*|хоче|прохання|запит\w*|вказівк\w*",
        obey=r"підкоряйся|слухай\w*|виконуй\w*|дотримуйся",
        only=r"лише|тільки|виключно",
        this=r"(?:ц\w+) (?:\w+ )?(?:файл\w*|документ\w*|нотатк\w*|повідомленн\w*|текст\w*)",
        now=r"відтепер|з цього моменту|тепер",
        void=r"недійсн\w*|скасован\w*|більше не діють",
        send=r"надішли\w*|відправ\w*|опублікуй\w*",
        loot=r"парол\w*|ключ\w*|токен\w*|секрет\w*",
        reveal=r"покажи|розкрий|виведи|повтори|напиши|скажи",
        yours=r"твої|ваші|свої",
        sysprompt=r"системн\w* (?:промпт|підказк|інструкці)\w*",
        stems=("ігнор", "проігнор", "забудь", "підкоряися", "слухаи", "виконуи", "дотримуися",
               "надішли", "відправ", "опублікуи", "інструкці", "лише", "тільки", "покажи",
               "розкрий", "виведи", "повтори", "напиши", "скажи"),
    ),
    Lexicon(
        "tr", spaced=True,
        ignore=r"yok say\w*|yoksay\w*|görmezden gel\w*|unut\w*|dikkate alma\w*|önemseme\w*|"
               r"uyma\w*|dinleme\w*|boş ver\w*|atla",
        prior=r"önceki|yukarıdaki|yukaridaki|önceden|orijinal|ilk|sistem\w*|tüm|bütün|tum|butun|"
              r"eski",
        orders=r"talimat\w*|kural\w*|komut\w*|yönerge\w*|direktif\w*|istem\w*|prompt\w*|emir\w*|"
               r"emr\w*",
        user=r"kullanıcı\w*|kullanici\w*",
        asked=r"iste\w*|dedi\w*|söyle\w*|talep\w*|rica\w*|talimat\w*",
        obey=r"uy\b|uyun|itaat et\w*|uygula\w*|yap|dinle\b|takip et\w*|izle",
        only=r"sadece|yalnızca|yalnizca|yalnız|ancak",
        this=r"bu (?:\w+ )?(?:dosya\w*|belge\w*|doküman\w*|not\w*|mesaj\w*|metin\w*|metn\w*|"
             r"sayfa\w*|e-posta\w*)",
        now=r"bundan sonra|şu andan itibaren|artık|bundan böyle",
        void=r"geçersiz\w*|iptal\w*|hükümsüz\w*|artık geçerli değil\w*",
        send=r"gönder\w*|yolla\w*|paylaş\w*|yükle\w*",
        loot=r"şifre\w*|parola\w*|anahtar\w*|kimlik bilgi\w*|token\w*|sır\w*",
        reveal=r"göster\w*|açıkla\w*|yaz\w*|söyle\w*|tekrarla\w*|paylaş\w*|ver",
        yours=r"senin|sizin",
        sysprompt=r"sistem (?:istem|komut|talimat|mesaj)\w*|gizli talimat\w*|ilk talimat\w*",
        stems=("yok", "yoksay", "gormezden", "unut", "dikkate", "onemseme", "uyma", "dinleme",
               "bos", "uy", "uyun", "itaat", "uygula", "dinle", "takip", "izle", "gonder",
               "yolla", "paylas", "yukle", "talimat", "kural", "şifre", "şifreleri", "geçersiz",
               "kullanıcı", "kullanıcıyı", "kullanıcının", "sadece", "yalnızca", "göster",
               "açıkla", "yaz", "söyle", "tekrarla", "paylaş", "ver"),
    ),
    Lexicon(
        "id", spaced=True,
        ignore=r"abaikan\w*|lupakan\w*|jangan ikuti|jangan hiraukan|jangan dengarkan|acuhkan|"
               r"tinggalkan",
        prior=r"sebelumnya|di atas|awal|asli|sistem|semua|seluruh|lama",
        orders=r"instruksi|perintah|aturan|petunjuk|arahan|prompt|pedoman",
        user=r"pengguna|user",
        asked=r"minta\w*|diminta|katakan|bilang|ingin\w*|mau|permintaan\w*|instruksi|perintah",
        obey=r"patuhi|ikuti|turuti|jalankan|laksanakan|taati",
        only=r"hanya|cuma|saja",
        this=r"(?:\w+ ){0,2}(?:berkas|file|dokumen|catatan|pesan|teks|halaman|surel|"
             r"email) (?:\w+ )?ini",
        now=r"mulai sekarang|mulai saat ini|dari sekarang|mulai hari ini",
        void=r"tidak berlaku(?: lagi)?|dibatalkan|batal|tidak sah|usang",
        send=r"kirim\w*|unggah\w*|bagikan|posting\w*",
        loot=r"kata sandi|sandi|kunci\w*|kredensial|token|rahasia",
        reveal=r"tunjukkan|ungkapkan|tampilkan|ulangi|tuliskan|sebutkan|beri tahu|katakan",
        yours=r"anda|kamu",
        sysprompt=r"prompt sistem|instruksi sistem|instruksi (?:awal|tersembunyi|rahasia)",
        stems=("abaikan", "lupakan", "jangan", "acuhkan", "tinggalkan", "patuhi", "ikuti",
               "turuti", "jalankan", "laksanakan", "taati", "hanya", "kirim", "unggah",
               "bagikan", "perintah", "sandi", "kunci", "pengguna", "tunjukkan", "ungkapkan",
               "tampilkan", "ulangi", "tuliskan", "sebutkan", "beri", "katakan"),
    ),
    Lexicon(
        "vi", spaced=True,
        ignore=r"bo qua|phot lo|quen (?:đi )?|đung (?:lam theo|nghe|tuan theo)|"
               r"khong (?:can )?(?:lam theo|tuan theo|nghe theo)|lo đi",
        prior=r"truoc(?: đo)?|ơ tren|phia tren|ban đau|goc|he thong|moi|tat ca|toan bo|cu",
        orders=r"huong dan|chi dan|chi thi|lenh|quy tac|quy đinh|yeu cau|prompt",
        user=r"nguoi dung|user",
        asked=r"yeu cau|đa noi|noi|muon|nho|đe nghi",
        obey=r"lam theo|tuan theo|nghe theo|thuc hien|chap hanh|vang loi",
        only=r"chi|duy nhat",
        this=r"(?:tai lieu|tep|file|van ban|ghi chu|tin nhan|trang|email|thu) (?:\w+ )?nay",
        now=r"tu bay gio|ke tu bay gio|tu nay|tu gio",
        void=r"vo hieu|bi huy|khong con hieu luc|khong con gia tri|het hieu luc",
        send=r"gui|tai len|chia se",
        loot=r"mat khau|khoa|thong tin đang nhap|token|bi mat|tep \.env",
        reveal=r"tiet lo|hien thi|cho (?:toi )?xem|lap lai|in ra|viet ra|noi cho toi",
        yours=r"cua ban",
        sysprompt=r"(?:loi nhac|lenh|huong dan|chi dan) he thong|prompt he thong",
        stems=("bo", "phot", "quen", "đung", "khong", "lam", "tuan", "nghe", "thuc", "vang",
               "chi", "gui", "chia", "mat", "nguoi", "tiet", "hien", "cho", "lap", "viet", "noi"),
    ),
    Lexicon(
        "zh", spaced=False,
        ignore=r"忽略|忽视|忽視|无视|無視|不要理会|不要理會|不理会|不用理会|别管|別管|不要管|"
               r"忘记|忘記|忘掉|抛开|拋開|跳过|跳過|不要遵守|不要遵循|不再遵守|不要听|不要聽|"
               r"别听|別聽|不用听|无需遵守|無需遵守|放弃|放棄|丢弃|丟棄",
        prior=r"之前|以前|先前|此前|上面|上述|以上|前面|原来|原來|原有|原始|初始|系统|系統|所有|"
              r"全部|一切|你的",
        orders=r"指令|指示|规则|規則|提示词|提示詞|提示|说明|說明|命令|设定|設定|要求|限制|准则|"
               r"準則|约束|約束",
        user=r"用户|用戶|使用者",
        asked=r"要求|请求|請求|说|說|问|問|指示|命令|指令",
        obey=r"服从|服從|听从|聽從|遵守|遵循|按照|照着|照著|执行|執行|依照|遵照|听|聽",
        only=r"只|仅|僅|只能|唯一",
        this=r"(?:这|這|此|本)(?:个|個|份|篇|条|條|封)?(?:文件|文档|文檔|檔案|档案|笔记|筆記|"
             r"消息|訊息|信息|说明|說明|页面|頁面|邮件|郵件|评论|評論|文本|内容|內容)",
        now=r"从现在开始|從現在開始|从现在起|從現在起|从今以后|從今以後|今后|今後|此后|此後|"
            r"接下来|接下來",
        void=r"无效|無效|作废|作廢|失效|取消|不再适用|不再適用|不再有效|撤销|撤銷",
        send=r"发送|發送|发给|發給|发到|發到|传给|傳給|上传|上傳|寄给|寄給|公开|公開|发布|發佈|"
             r"发布",
        loot=r"密码|密碼|密钥|密鑰|口令|凭证|憑證|凭据|憑據|令牌|token|秘钥|配置文件|\.env",
        reveal=r"告诉我|告訴我|透露|泄露|洩露|输出|輸出|显示|顯示|打印|重复|重複|说出|說出|写出|"
               r"寫出|展示|给我看|給我看",
        yours=r"你的|您的",
        sysprompt=r"系统提示|系統提示|系统指令|系統指令|初始指令|隐藏指令|隱藏指令|原始指令",
        stems=("忽", "无视", "無視", "不要", "不理", "不用", "别", "別", "忘", "抛开", "拋開",
               "跳过", "跳過", "不再", "无需", "無需", "放弃", "放棄", "丢弃", "丟棄", "只",
               "仅", "僅", "服从", "服從", "现在", "現在", "今后", "今後", "此后", "此後",
               "接下来", "接下來", "无效", "無效", "作废", "作廢", "失效", "发送", "發送",
               "发给", "發給", "上传", "上傳", "告诉我", "告訴我", "透露", "泄露", "洩露",
               "输出", "輸出", "显示", "顯示", "打印", "重复", "重複", "说出", "說出", "写出",
               "寫出", "展示", "给我看", "給我看", "系统提示", "系統提示"),
    ),
    Lexicon(
        "ja", spaced=False,
        ignore=r"無視|忘れ|従わない|従わず|したがわない|聞かない|聞くな|気にしない|捨て|スキップ|"
               r"破棄",
        prior=r"以前|前の|これまでの|今までの|上記|上の|先ほどの|元の|最初の|初期|システム|"
              r"すべて|全て|全部|あなたの",
        orders=r"指示|命令|ルール|規則|プロンプト|指令|設定|ガイドライン|制約|制限|要求",
        user=r"ユーザー|ユーザ|利用者|使用者",
        asked=r"依頼|要求|指示|頼み|お願い|言った|言う|求め",
        obey=r"従って|従え|従う|従い|したがって|実行して|実行しろ|守って|聞いて|やって",
        only=r"だけ|のみ|only|ひたすら",
        this=r"(?:この|本)(?:ファイル|文書|ドキュメント|メモ|メッセージ|テキスト|ページ|メール|"
             r"コメント)",
        now=r"今後|これから|今から|以後|以降|これ以降",
        void=r"無効|取り消|破棄され|適用されない|失効",
        send=r"送信|送って|送れ|アップロード|投稿|公開して|共有して",
        loot=r"パスワード|鍵|キー|認証情報|資格情報|トークン|秘密|\.env",
        reveal=r"教えて|見せて|表示して|出力して|繰り返して|書き出して|明かして|開示して",
        yours=r"あなたの",
        sysprompt=r"システムプロンプト|システム指示|初期指示|隠された指示|元の指示",
        stems=("無視", "忘れ", "従わ", "したかわ", "聞か", "聞くな", "気にし", "捨て",
               "スキッフ", "破棄", "たけ", "のみ", "今後", "これから", "今から", "以後", "以降",
               "無効", "取り消", "送信", "送って", "送れ", "アッフロート", "投稿", "教えて",
               "見せて", "表示して", "出力して", "繰り返して", "書き出して", "明かして",
               "開示して", "システムプロンプト"),
    ),
    Lexicon(
        "ko", spaced=False,
        ignore=r"무시|잊어|잊고|잊으|따르지 ?마|따르지 ?말|듣지 ?마|듣지 ?말|신경 ?쓰지 ?마|"
               r"건너뛰|버리",
        prior=r"이전|앞의|앞서|위의|위에|기존|원래|초기|처음|시스템|모든|모두|전부|당신의",
        orders=r"지시|명령|규칙|지침|프롬프트|설정|제약|요청|안내",
        user=r"사용자|유저|이용자",
        asked=r"요청|부탁|지시|말|요구|원하",
        obey=r"따르|따라|복종|실행|수행|들어|지켜",
        only=r"만|오직|오로지|only",
        this=r"이 ?(?:파일|문서|메모|메시지|텍스트|페이지|이메일|댓글|글)",
        now=r"지금부터|이제부터|앞으로|이후로|지금 이후",
        void=r"무효|취소|폐기|효력을 잃|더 이상 유효하지",
        send=r"보내|전송|업로드|공유|게시",
        loot=r"비밀번호|패스워드|암호|키|자격 ?증명|토큰|비밀",
        reveal=r"알려|보여|출력|공개|반복|말해|밝혀",
        yours=r"당신의|너의",
        sysprompt=r"시스템 ?프롬프트|시스템 ?지시|초기 ?지시|숨겨진 ?지시",
        stems=("무시", "잊어", "잊고", "잊으", "따르지", "듣지", "신경", "건너뛰", "버리",
               "따르", "따라", "복종", "지금부터", "이제부터", "앞으로", "이후로", "무효",
               "취소", "보내", "전송", "업로드", "오직", "오로지", "이전", "모든", "알려",
               "보여", "출력", "공개", "반복", "말해", "밝혀", "시스템"),
    ),
    Lexicon(
        "ar", spaced=True,
        ignore=r"\w?تجاهل\w*|\w?انس\w*|\w?اهمل\w*|\w?أهمل\w*|لا تتبع|لا تلتزم|لا تستمع|لا تطع|"
               r"\w?تخط\w*|\w?اترك",
        prior=r"\w*السابق\w*|\w*أعلاه|\w*اعلاه|\w*الأصلي\w*|\w*الأولي\w*|\w*النظام|كل|جميع|"
              r"\w*الماضي\w*",
        orders=r"\w*تعليمات\w*|\w*التعليمات|\w*قواعد\w*|\w*القواعد|\w*أوامر\w*|\w*الأوامر|"
               r"\w*إرشادات|\w*توجيهات|\w*الموجه",
        user=r"\w*المستخدم\w*",
        asked=r"\w*طلب\w*|\w*قال\w*|\w*يريد|\w*أراد",
        obey=r"\w?اتبع|\w?أطع|\w?اطع|\w?التزم|\w?نفذ|\w?استمع",
        only=r"فقط|وحده|حصرا",
        this=r"\w*(?:الملف|المستند|الوثيقة|الملاحظة|الرسالة|النص|الصفحة|البريد) (?:\w+ )?(?:هذا|"
             r"هذه)|(?:هذا|هذه) \w*(?:الملف|المستند|الوثيقة|الملاحظة|الرسالة|النص|الصفحة)",
        now=r"من الآن فصاعدا|من الان فصاعدا|من الآن|من الان|ابتداء من الآن|بعد الآن",
        void=r"\w*لاغ\w*|\w*ملغا\w*|\w*ملغ\w*|غير صالح\w*|لم تعد سارية|باطل\w*",
        send=r"\w?أرسل\w*|\w?ارسل\w*|\w?انشر\w*|\w?ارفع\w*|\w?شارك\w*",
        loot=r"\w*كلمات? (?:ال)?مرور|\w*كلمة (?:ال)?سر|\w*مفاتيح|\w*المفتاح|\w*رموز|"
             r"\w*بيانات الاعتماد|\w*أسرار",
        reveal=r"\w?اكشف|\w?أظهر|\w?اظهر|\w?اعرض|\w?كرر|\w?اطبع|\w?اكتب|\w?أخبرني|\w?اخبرني",
        yours=r"",
        sysprompt=r"موجه النظام|تعليمات النظام|\w*التعليمات (?:الأولية|المخفية|السرية)|"
                  r"\w*تعليماتك|\w*أوامرك",
        stems=("تجاهل", "وتجاهل", "فتجاهل", "انس", "وانس", "اهمل", "أهمل", "لا", "تخط", "اترك",
               "اتبع", "واتبع", "أطع", "اطع", "التزم", "والتزم", "نفذ", "ونفذ", "استمع", "من",
               "ابتداء", "بعد", "أرسل", "وأرسل", "ارسل", "وارسل", "انشر", "ارفع", "شارك", "فقط",
               "تعليمات", "التعليمات", "اكشف", "أظهر", "اظهر", "اعرض", "كرر", "اطبع", "اكتب",
               "أخبرني", "اخبرني"),
    ),
    Lexicon(
        "hi", spaced=False,
        ignore=r"अनदेखा|नज़रअंदाज़|नजरअंदाज|अनसुना|भूल जा|भूल जाओ|भूल जाएं|भूलो|पालन न कर|"
               r"पालन मत कर|मत मानो|न मानें|छोड़ दो|छोड़ दें|उपेक्षा",
        prior=r"पिछले|पिछली|पहले|पूर्व|ऊपर|ऊपरी|मूल|प्रारंभिक|सिस्टम|सभी|सारे|सारी|अपने",
        orders=r"निर्देश|नियम|आदेश|हिदायत|प्रॉम्प्ट|प्रोम्प्ट|दिशानिर्देश|कमांड",
        user=r"उपयोगकर्ता|यूज़र|यूजर|प्रयोक्ता",
        asked=r"अनुरोध|कहा|कही|मांग|चाहता|चाहती|निर्देश|आदेश",
        obey=r"पालन कर|मानो|मानें|माने|अनुसरण कर|का पालन|चलाओ|करो",
        only=r"केवल|सिर्फ|सिर्फ़|मात्र",
        this=r"इस (?:फ़ाइल|फाइल|दस्तावेज़|दस्तावेज|नोट|संदेश|पाठ|पेज|पृष्ठ|ईमेल)",
        now=r"अब से|आज से|अभी से|इसके बाद से",
        void=r"अमान्य|रद्द|निरस्त|लागू नहीं",
        send=r"भेज|अपलोड|साझा कर|पोस्ट कर",
        loot=r"पासवर्ड|कुंजी|कुंजियाँ|क्रेडेंशियल|टोकन|गुप्त",
        reveal=r"बताओ|बताएं|बताइए|दिखाओ|दिखाएं|प्रकट करो|दोहराओ|लिखो|प्रिंट करो",
        yours=r"आपके|तुम्हारे|आपकी|तुम्हारी|अपने",
        sysprompt=r"सिस्टम प्रॉम्प्ट|सिस्टम प्रोम्प्ट|सिस्टम निर्देश|छिपे हुए निर्देश|मूल निर्देश",
        stems=("अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "अनसुना", "भूल", "पालन", "मत मानो", "न मानें",
               "छोड़", "उपेक्षा", "केवल", "सिर्फ", "अब से", "आज से", "भेज", "अपलोड", "बताओ",
               "बताएं", "बताइए", "दिखाओ", "दिखाएं", "प्रकट", "दोहराओ", "लिखो", "सिस्टम"),
    ),
    Lexicon(
        "el", spaced=True,
        ignore=r"αγνόησε|αγνοήστε|ξέχασε|ξεχάστε|μην ακολουθείσ|μην ακολουθήσεισ|παράβλεψε|"
               r"παραβλέψτε|μην υπακούσ",
        prior=r"προηγούμεν\w*|παραπάνω|αρχικ\w*|όλεσ|όλα|όλουσ|του συστήματοσ|σου|σασ",
        orders=r"οδηγί\w*|εντολ\w*|κανόν\w*|prompt",
        user=r"χρήστ\w*",
        asked=r"ζήτησε|είπε|αίτημα|θέλει|ζητά|εντολ\w*|οδηγί\w*",
        obey=r"ακολούθησε|ακολουθήστε|υπάκουσε|υπακούστε|εκτέλεσε|εκτελέστε|τήρησε",
        only=r"μόνο|αποκλειστικά",
        this=r"(?:αυτό|αυτή|αυτού|αυτήσ|αυτά) (?:το |τη |την |του |τησ )?(?:αρχεί|έγγραφ|σημείωσ|"
             r"μήνυμ|κείμεν|σελίδ)\w*",
        now=r"από τώρα και στο εξήσ|από εδώ και πέρα|από τώρα",
        void=r"άκυρ\w*|ακυρώθηκ\w*|δεν ισχύ\w*|καταργήθηκ\w*",
        send=r"στείλε|στείλτε|ανέβασε|δημοσίευσε",
        loot=r"κωδικ\w*|συνθηματικ\w*|κλειδι\w*|διαπιστευτήρια|token",
        reveal=r"δείξε|δείξτε|αποκάλυψε|πεσ μου|εμφάνισε|επανάλαβε|γράψε",
        yours=r"σου|σασ",
        sysprompt=r"(?:prompt|οδηγίεσ) (?:του )?συστήματοσ|κρυφ\w* οδηγί\w*|αρχικ\w* οδηγί\w*",
        stems=("αγνόησε", "αγνοήστε", "ξέχασε", "ξεχάστε", "μην", "παράβλεψε", "παραβλέψτε",
               "ακολούθησε", "ακολουθήστε", "υπάκουσε", "υπακούστε", "εκτέλεσε", "εκτελέστε",
               "τήρησε", "μόνο", "αποκλειστικά", "στείλε", "στείλτε", "δείξε", "δείξτε",
               "αποκάλυψε", "πεσ", "εμφάνισε", "επανάλαβε", "οδηγίεσ", "χρήστη"),
    ),
    Lexicon(
        "bn", spaced=False,
        ignore=r"উপেক্ষা কর|অগ্রাহ্য কর|ভুলে যা|মানবে না|মেনো না|অনুসরণ কোরো না|অনুসরণ করবে না|"
               r"পাত্তা দিও না",
        prior=r"আগের|পূর্ববর্তী|উপরের|পূর্বের|মূল|প্রাথমিক|সিস্টেম|সমস্ত|সব|সকল|তোমার|আপনার",
        orders=r"নির্দেশ|নিয়ম|আদেশ|প্রম্পট",
        user=r"ব্যবহারকারী",
        asked=r"অনুরোধ|বলেছে|চেয়েছে|চাওয়া|নির্দেশ",
        obey=r"মেনে চল|অনুসরণ কর|পালন কর|মানো|মানুন",
        only=r"শুধু|কেবল",
        this=r"এই (?:ফাইল|নথি|ডকুমেন্ট|নোট|বার্তা|লেখা|পাতা|পৃষ্ঠা|ইমেল)",
        now=r"এখন থেকে|আজ থেকে",
        void=r"বাতিল|অকার্যকর|অবৈধ",
        send=r"পাঠাও|পাঠান|আপলোড|শেয়ার কর",
        loot=r"পাসওয়ার্ড|চাবি|টোকেন|গোপন",
        reveal=r"দেখাও|দেখান|বলো|বলুন|প্রকাশ কর|পুনরাবৃত্তি কর|লেখো",
        yours=r"তোমার|আপনার|তোর",
        sysprompt=r"সিস্টেম প্রম্পট|সিস্টেম নির্দেশ|গোপন নির্দেশ|মূল নির্দেশ",
        stems=("উপেক্ষা", "অগ্রাহ্য", "ভুলে", "মানবে", "মেনো", "অনুসরণ", "পাত্তা", "মেনে",
               "পালন", "শুধু", "কেবল", "বাতিল", "পাঠাও", "পাঠান", "দেখাও", "দেখান", "প্রকাশ",
               "সিস্টেম"),
    ),
    Lexicon(
        "th", spaced=False,
        ignore=r"เพิกเฉย|ไม่ต้องสนใจ|อย่าสนใจ|ลืม|ละเว้น|ไม่ต้องทำตาม|อย่าทำตาม|ข้าม",
        prior=r"ก่อนหน้า|ข้างต้น|ด้านบน|เดิม|ทั้งหมด|ระบบ|แรก",
        orders=r"คำสั่ง|คำแนะนำ|กฎ|ข้อกำหนด|พรอมต์|ข้อบังคับ",
        user=r"ผู้ใช้",
        asked=r"ขอ|บอก|ต้องการ|คำขอ|สั่ง",
        obey=r"ทำตาม|ปฏิบัติตาม|เชื่อฟัง|ดำเนินการตาม",
        only=r"เท่านั้น|เพียง|แค่",
        this=r"(?:ไฟล์|เอกสาร|บันทึก|ข้อความ|หน้า|อีเมล)นี้",
        now=r"ตั้งแต่นี้ไป|จากนี้ไป|ต่อจากนี้",
        void=r"เป็นโมฆะ|ยกเลิก|ไม่มีผล|ใช้ไม่ได้",
        send=r"ส่ง|อัปโหลด|แชร์",
        loot=r"รหัสผ่าน|คีย์|กุญแจ|โทเค็น|ความลับ",
        reveal=r"แสดง|บอก|เปิดเผย|พิมพ์|ทวน",
        yours=r"",
        sysprompt=r"พรอมต์ระบบ|คำสั่งที่ซ่อน",
        stems=("เพิกเฉย", "สนใจ", "ลืม", "ละเว้น", "ทำตาม", "ข้าม", "ปฏิบัติตาม", "เชื่อฟัง",
               "เท่านั้น", "ยกเลิก", "โมฆะ", "แสดง", "เปิดเผย", "พรอมต์ระบบ", "คำสั่งระบบ"),
    ),
)
# fmt: on
